import type { Kysely } from 'kysely';

// Every inbound report (bounce, delivery notification, complaint) once processed, by the SHA-256 of
// its bytes: the same report arriving twice (a retrying MTA, a resent copy) changes nothing the second time.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inbound_reports')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('message_id', 'text')
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('inbound_reports').ifExists().execute();
}
