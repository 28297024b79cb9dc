import type { Kysely } from 'kysely';

// Signed return paths (issue 7, point 6):
// - server_secrets: secrets of the installation as a whole, shared by every process on the store
//   (the return-path key, when MAILROOM_SECRET_KEY is not set to derive one from);
// - inbound_reports.verdict: what acting on a report came to (JSON), with the reason for every
//   result that was ignored (a report about someone its return path does not speak for).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('server_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey().notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('inbound_reports').addColumn('verdict', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('inbound_reports').dropColumn('verdict').execute();
  await db.schema.dropTable('server_secrets').ifExists().execute();
}
