import { sql, type Kysely } from 'kysely';
import { storeKindOfDb } from '../database.js';

// Log search and statistics over time (issue 7):
// - indexes for each new filter of GET /v1/send/logs, every one ending in
//   (created_at, id) so a newest-first page comes off the index without a sort:
//   the recipient and the sender compared case-insensitively (an index on the
//   lower-cased column, the expression the queries use), and `type` alone (the
//   (type, status, …) index cannot give type-only pages in time order);
// - log_hourly_counts: the counts of log_counters, per hour of the entries'
//   created_at, one row per hour with a column per (type, status) pair, moved in
//   the same transactions, so counts over a time range (stats, time series,
//   X-Total-Count) read one row per hour instead of counting entries. Filled
//   here from the entries already written.
// Written out, not imported: a migration stays as it was released (stats/log-count-columns.ts is the live list).
const LOG_COUNT_COLUMNS = [
  { type: 'send', status: 'sent', column: 'send_sent' },
  { type: 'send', status: 'delivered', column: 'send_delivered' },
  { type: 'send', status: 'bounced', column: 'send_bounced' },
  { type: 'send', status: 'failed', column: 'send_failed' },
  { type: 'send', status: 'suppressed', column: 'send_suppressed' },
  { type: 'bounce', status: 'bounced', column: 'bounce_bounced' },
  { type: 'complaint', status: 'complained', column: 'complaint_complained' },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index log_entries_recipient_idx on log_entries (workspace_id, lower(recipient), created_at, id)`.execute(db);
  await sql`create index log_entries_sender_idx on log_entries (workspace_id, lower(from_email), created_at, id)`.execute(db);
  await db.schema.createIndex('log_entries_type_idx').on('log_entries').columns(['workspace_id', 'type', 'created_at', 'id']).execute();

  let table = db.schema
    .createTable('log_hourly_counts')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('hour', 'text', (c) => c.notNull());
  for (const { column } of LOG_COUNT_COLUMNS) table = table.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0));
  // On SQLite the rows live in the key's b-tree: a range of hours is read in one pass, not looked up row by row.
  if (storeKindOfDb(db) === 'sqlite') table = table.modifyEnd(sql`without rowid`);
  await table.addPrimaryKeyConstraint('log_hourly_counts_pk', ['workspace_id', 'hour']).execute();

  // `created_at` is ISO 8601 UTC text: its first 13 characters name the hour.
  const columns = LOG_COUNT_COLUMNS.map((c) => sql.ref(c.column));
  const sums = LOG_COUNT_COLUMNS.map((c) => sql`sum(case when type = ${sql.lit(c.type)} and status = ${sql.lit(c.status)} then 1 else 0 end)`);
  await sql`
    insert into log_hourly_counts (workspace_id, hour, ${sql.join(columns)})
    select workspace_id, substr(created_at, 1, 13) || ':00:00.000Z', ${sql.join(sums)}
    from log_entries
    group by workspace_id, substr(created_at, 1, 13)
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('log_hourly_counts').ifExists().execute();
  await db.schema.dropIndex('log_entries_type_idx').execute();
  await db.schema.dropIndex('log_entries_sender_idx').execute();
  await db.schema.dropIndex('log_entries_recipient_idx').execute();
}
