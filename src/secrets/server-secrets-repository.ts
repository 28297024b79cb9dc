import type { Db } from '../db/database.js';
import type { ServerSecretsTable } from '../db/schema.js';

/** Secrets of the installation as a whole, by name; stored once, by whichever process gets there first. */
export function createServerSecretsRepository(db: Db) {
  return {
    async find(name: string): Promise<ServerSecretsTable | undefined> {
      return db.selectFrom('server_secrets').selectAll().where('name', '=', name).executeTakeFirst();
    },
    /** Stores the secret unless one of that name exists: two processes starting at once keep the first one's. */
    async insertIfAbsent(row: ServerSecretsTable): Promise<void> {
      await db.insertInto('server_secrets').values(row).onConflict((oc) => oc.column('name').doNothing()).execute();
    },
    /** Replaces a stored secret's value (a re-encryption). */
    async update(name: string, value: string): Promise<void> {
      await db.updateTable('server_secrets').set({ value }).where('name', '=', name).execute();
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    serverSecrets: ReturnType<typeof createServerSecretsRepository>;
  }
}
