import type { Kysely } from 'kysely';

// First-run setup (issue 14): while Mailroom has no users, `serve` issues a one-time link (a random
// token, kept only as its SHA-256) that lets the first person create an admin account and a workspace.
// It is valid for an hour and used once.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('setup_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey().notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('setup_tokens').ifExists().execute();
}
