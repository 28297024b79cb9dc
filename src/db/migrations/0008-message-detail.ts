import type { Kysely } from 'kysely';

// What GET /v1/messages/{id} and /content answer (issue 7):
// - delivery_attempts.duration_ms: how long the hand-over to the provider took (null for attempts
//   not timed: those written before, and inbound soft bounces);
// - message_mime: the message exactly as built and handed over (DKIM-signed), the latest attempt's;
// - webhook_deliveries by event: a message's deliveries are found through its events.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('delivery_attempts').addColumn('duration_ms', 'integer').execute();
  await db.schema
    .createTable('message_mime')
    .addColumn('message_id', 'text', (c) => c.primaryKey().notNull().references('messages.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('raw', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_event_idx').on('webhook_deliveries').column('event_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_event_idx').execute();
  await db.schema.dropTable('message_mime').ifExists().execute();
  await db.schema.alterTable('delivery_attempts').dropColumn('duration_ms').execute();
}
