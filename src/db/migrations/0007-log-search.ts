import { sql, type Kysely } from 'kysely';

// Log search and statistics over time (issue 7):
// - indexes for each new filter of GET /v1/send/logs, every one ending in
//   (created_at, id) so a newest-first page comes off the index without a sort:
//   the recipient and the sender compared case-insensitively (an index on the
//   lower-cased column, the expression the queries use), and `type` alone (the
//   (type, status, …) index cannot give type-only pages in time order);
// - log_hourly_counters: the counters of log_counters, per hour of the entries'
//   created_at, moved in the same transactions, so counts over a time range
//   (stats, time series, X-Total-Count) read at most one row per hour and
//   (type, status) instead of counting entries. Filled here from the entries
//   already written.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index log_entries_recipient_idx on log_entries (workspace_id, lower(recipient), created_at, id)`.execute(db);
  await sql`create index log_entries_sender_idx on log_entries (workspace_id, lower(from_email), created_at, id)`.execute(db);
  await db.schema.createIndex('log_entries_type_idx').on('log_entries').columns(['workspace_id', 'type', 'created_at', 'id']).execute();

  await db.schema
    .createTable('log_hourly_counters')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('log_hourly_counters_pk', ['workspace_id', 'hour', 'type', 'status'])
    .execute();
  // `created_at` is ISO 8601 UTC text: its first 13 characters name the hour.
  await sql`
    insert into log_hourly_counters (workspace_id, hour, type, status, count)
    select workspace_id, substr(created_at, 1, 13) || ':00:00.000Z', type, status, count(*)
    from log_entries
    group by workspace_id, substr(created_at, 1, 13), type, status
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('log_hourly_counters').ifExists().execute();
  await db.schema.dropIndex('log_entries_type_idx').execute();
  await db.schema.dropIndex('log_entries_sender_idx').execute();
  await db.schema.dropIndex('log_entries_recipient_idx').execute();
}
