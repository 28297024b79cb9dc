import type { Kysely } from 'kysely';

// Idempotency keys (issue point 6): a client's `Idempotency-Key` on a send, remembered per workspace for
// 24 hours in the store, so a retry answered by another process still finds it. The primary key
// (workspace_id, key) is what decides between two requests racing with the same key: the INSERT of one
// of them fails, on both stores and across processes. `lease` is the random token of the request that
// holds an in-flight row, so a request whose row was taken over (it ran too long) cannot overwrite the
// new holder's answer. The stored response is replayed as it was: status, headers (JSON) and body text.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('lease', 'text')
    .addColumn('claimed_at', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_headers', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['workspace_id', 'key'])
    .execute();
  // For the periodic purge of expired keys.
  await db.schema.createIndex('idempotency_keys_expires_idx').on('idempotency_keys').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').ifExists().execute();
}
