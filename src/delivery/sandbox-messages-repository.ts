import type { Db } from '../db/database.js';
import type { SandboxMessagesTable } from '../db/schema.js';

export function createSandboxMessagesRepository(db: Db) {
  return {
    /** Keeps a message; a retry of the same message keeps the first copy. */
    async keep(row: SandboxMessagesTable): Promise<void> {
      await db.insertInto('sandbox_messages').values(row).onConflict((oc) => oc.column('message_id').doNothing()).execute();
    },
    async find(messageId: string): Promise<SandboxMessagesTable | undefined> {
      return db.selectFrom('sandbox_messages').selectAll().where('message_id', '=', messageId).executeTakeFirst();
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    sandboxMessages: ReturnType<typeof createSandboxMessagesRepository>;
  }
}
