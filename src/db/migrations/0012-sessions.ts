import type { Kysely } from 'kysely';

// Dashboard sessions (issue 14), in the store so that every process on PostgreSQL shares them:
// - sessions: only the SHA-256 of the cookie's random token is kept, with the session's CSRF token
//   and the times its idle (7 days) and absolute (30 days) expiry are read from;
// - sign_in_failures: one row per failed sign-in, by address and client, for the lock-out
//   (10 in 15 minutes); rows older than the window are deleted as new ones are written.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey().notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').columns(['user_id']).execute();

  await db.schema
    .createTable('sign_in_failures')
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('client_address', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_failures_pair_idx').on('sign_in_failures').columns(['email', 'client_address', 'failed_at']).execute();
  await db.schema.createIndex('sign_in_failures_time_idx').on('sign_in_failures').columns(['failed_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sign_in_failures').ifExists().execute();
  await db.schema.dropTable('sessions').ifExists().execute();
}
