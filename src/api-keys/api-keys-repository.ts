import { sql } from 'kysely';
import { compileOnce } from '../db/compiled-query.js';
import { storeKindOfDb, type Db } from '../db/database.js';
import type { ApiKeysTable } from '../db/schema.js';

export type ApiKeyRow = ApiKeysTable;
export type ApiKeyListRow = Omit<ApiKeysTable, 'key_hash' | 'lookup_id' | 'workspace_id'>;

export type KeyLookupRow = Pick<ApiKeyRow, 'id' | 'workspace_id' | 'key_hash' | 'last_used_at' | 'permission' | 'domain_id'>;

// Runs on every authenticated request.
const findByLookupId = compileOnce((db: Db, lookupId: string) =>
  db.selectFrom('api_keys').select(['id', 'workspace_id', 'key_hash', 'last_used_at', 'permission', 'domain_id']).where('lookup_id', '=', lookupId),
);

export function createApiKeysRepository(db: Db) {
  return {
    async insert(row: ApiKeyRow): Promise<void> {
      await db.insertInto('api_keys').values(row).execute();
    },
    async findByLookupId(lookupId: string): Promise<KeyLookupRow | undefined> {
      return (await findByLookupId(db, lookupId))[0];
    },
    async listByWorkspace(workspaceId: string): Promise<ApiKeyListRow[]> {
      return db
        .selectFrom('api_keys')
        .select(['id', 'name', 'masked_key', 'created_at', 'last_used_at', 'permission', 'domain_id'])
        .where('workspace_id', '=', workspaceId)
        .orderBy('id', 'desc')
        .execute();
    },
    /**
     * The ids of the workspace's full_access keys, locked until the transaction
     * ends on PostgreSQL (FOR UPDATE), so that two deletes at once cannot leave
     * none; SQLite runs one writer at a time.
     */
    async lockFullAccess(workspaceId: string): Promise<string[]> {
      const lock = storeKindOfDb(db) === 'postgres' ? sql` for update` : sql``;
      const { rows } = await sql<{ id: string }>`select id from api_keys where workspace_id = ${workspaceId} and permission = 'full_access'${lock}`.execute(db);
      return rows.map((r) => r.id);
    },
    /** Returns whether a key of that workspace was deleted. */
    async delete(workspaceId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('api_keys').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async touch(id: string, at: string): Promise<void> {
      await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    apiKeys: ReturnType<typeof createApiKeysRepository>;
  }
}
