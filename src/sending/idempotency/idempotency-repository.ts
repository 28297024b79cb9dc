import type { Db } from '../../db/database.js';
import type { IdempotencyKeysTable } from '../../db/schema.js';

export type IdempotencyRow = IdempotencyKeysTable;

/** The stored answer of a finished request, replayed as it was. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

/**
 * The SQL of idempotency keys. Every write that decides who holds a key is one
 * statement whose condition the store checks: the primary key for a new claim,
 * `lease` for finishing, `claimed_at` for a take-over. So no read-then-write
 * race exists between requests, threads or processes.
 */
export function createIdempotencyRepository(db: Db) {
  return {
    async find(workspaceId: string, key: string): Promise<IdempotencyRow | undefined> {
      return db.selectFrom('idempotency_keys').selectAll().where('workspace_id', '=', workspaceId).where('key', '=', key).executeTakeFirst();
    },

    /** Inserts the in-flight row unless the key exists; true when this call inserted it (the claim is won). */
    async insertClaim(row: Omit<IdempotencyRow, 'response_status' | 'response_headers' | 'response_body'>): Promise<boolean> {
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({ ...row, response_status: null, response_headers: null, response_body: null })
        .onConflict((oc) => oc.columns(['workspace_id', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      return inserted !== undefined;
    },

    /** Hands an in-flight row claimed before `staleBefore` to a new lease; true when this call did. */
    async takeOver(workspaceId: string, key: string, fingerprint: string, staleBefore: string, lease: string, now: string): Promise<boolean> {
      const taken = await db
        .updateTable('idempotency_keys')
        .set({ lease, claimed_at: now })
        .where('workspace_id', '=', workspaceId)
        .where('key', '=', key)
        .where('fingerprint', '=', fingerprint)
        .where('state', '=', 'in_flight')
        .where('claimed_at', '<', staleBefore)
        .returning('key')
        .executeTakeFirst();
      return taken !== undefined;
    },

    /** Stores the answer, if `lease` still holds the row. */
    async complete(workspaceId: string, key: string, lease: string, response: StoredResponse): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', lease: null, response_status: response.status, response_headers: JSON.stringify(response.headers), response_body: response.body })
        .where('workspace_id', '=', workspaceId)
        .where('key', '=', key)
        .where('lease', '=', lease)
        .execute();
    },

    /** Forgets an in-flight claim, if `lease` still holds it, so the key can be used again. */
    async release(workspaceId: string, key: string, lease: string): Promise<void> {
      await db.deleteFrom('idempotency_keys').where('workspace_id', '=', workspaceId).where('key', '=', key).where('lease', '=', lease).execute();
    },

    /** Deletes the key if it has expired, so a new request may claim it. */
    async deleteIfExpired(workspaceId: string, key: string, now: string): Promise<void> {
      await db.deleteFrom('idempotency_keys').where('workspace_id', '=', workspaceId).where('key', '=', key).where('expires_at', '<=', now).execute();
    },

    /** Deletes every expired key; returns how many. */
    async purgeExpired(now: string): Promise<number> {
      const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;

declare module '../../db/store.js' {
  interface Repositories {
    idempotencyKeys: ReturnType<typeof createIdempotencyRepository>;
  }
}
