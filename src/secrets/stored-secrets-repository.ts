import type { Db } from '../db/database.js';
import { DKIM_PRIVATE_KEY, RETURN_PATH_KEY, UPSTREAM_CREDENTIAL, WEBHOOK_SECRET, type SecretPurpose } from '../lib/secret-box.js';

/** The `server_secrets` row of the return-path key (inbound/return-path-key.ts). */
export const RETURN_PATH_KEY_NAME = 'return_path_key';

/** One secret at rest, wherever it is kept, as stored (sealed, or in clear from before). */
export interface StoredSecret {
  purpose: SecretPurpose;
  /** The row it is kept in: a webhook's id, a domain's id, a server secret's name. */
  id: string;
  value: string;
}

/** Where each kind of secret is kept: table, key column, secret column. */
const PLACES = [
  { purpose: WEBHOOK_SECRET, table: 'webhooks', key: 'id', column: 'secret' },
  { purpose: DKIM_PRIVATE_KEY, table: 'domains', key: 'id', column: 'dkim_private_key' },
  { purpose: RETURN_PATH_KEY, table: 'server_secrets', key: 'name', column: 'value' },
  { purpose: UPSTREAM_CREDENTIAL, table: 'upstreams', key: 'id', column: 'secret' },
] as const;

/**
 * Every secret the store keeps encrypted, read and written as one set: what
 * start-up seals (the ones stored in clear before) and what `secrets rotate`
 * re-encrypts. A new kind of secret at rest is one more entry in PLACES.
 */
export function createStoredSecretsRepository(db: Db) {
  const placeOf = (purpose: SecretPurpose) => PLACES.find((p) => p.purpose === purpose)!;
  return {
    async list(): Promise<StoredSecret[]> {
      const all: StoredSecret[] = [];
      for (const { purpose, table, key, column } of PLACES) {
        let query = db.selectFrom(table).select([`${key} as id`, `${column} as value`] as never[]);
        if (table === 'server_secrets') query = query.where('name', '=', RETURN_PATH_KEY_NAME);
        // A relay without a password has no secret to keep.
        if (table === 'upstreams') query = query.where('secret', 'is not', null);
        const rows = (await query.orderBy(key).execute()) as unknown as { id: string; value: string }[];
        all.push(...rows.map((row) => ({ purpose, id: row.id, value: row.value })));
      }
      return all;
    },
    /** Replaces one secret's stored value if it is still `from` (another process may have sealed it first); whether it did. */
    async replace(secret: StoredSecret, to: string): Promise<boolean> {
      const { table, key, column } = placeOf(secret.purpose);
      const result = await db
        .updateTable(table)
        .set({ [column]: to } as never)
        .where(key as never, '=', secret.id as never)
        .where(column as never, '=', secret.value as never)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    storedSecrets: ReturnType<typeof createStoredSecretsRepository>;
  }
}
