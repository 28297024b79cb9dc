import type { Kysely } from 'kysely';

// What the delivery worker and the event path keep:
// - delivery_jobs.pending_recipients: after a partial success, the recipients
//   still to be tried (JSON array); null means every recipient whose `send`
//   entry is still `sent`.
// - delivery_attempts: an append-only record of every hand-over to a provider,
//   one row per recipient per attempt, beside the current status in log_entries.
// - message_events: every event a message's recipients went through (the
//   internal event path), with the payload a webhook receives.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('delivery_jobs').addColumn('pending_recipients', 'text').execute();
  // The claim orders due jobs by (available_at, id): with id in the index, the first n come
  // straight off it instead of every due job being sorted at each claim (a burst all due at once).
  await db.schema.dropIndex('delivery_jobs_claim_idx').execute();
  await db.schema.createIndex('delivery_jobs_due_idx').on('delivery_jobs').columns(['state', 'available_at', 'id']).execute();

  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('delivery_attempts_message_idx').on('delivery_attempts').columns(['message_id', 'id']).execute();

  await db.schema
    .createTable('message_events')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('message_events_message_idx').on('message_events').columns(['message_id', 'id']).execute();
  await db.schema.createIndex('message_events_workspace_idx').on('message_events').columns(['workspace_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('message_events').ifExists().execute();
  await db.schema.dropTable('delivery_attempts').ifExists().execute();
  await db.schema.dropIndex('delivery_jobs_due_idx').execute();
  await db.schema.createIndex('delivery_jobs_claim_idx').on('delivery_jobs').columns(['state', 'available_at']).execute();
  await db.schema.alterTable('delivery_jobs').dropColumn('pending_recipients').execute();
}
