import { sql, type Kysely } from 'kysely';

// The log's type indexes without its sends (issue 19). Nearly every entry is a `send`, and each
// index a send writes costs the accepting path B-tree pages at every commit (docs/architecture.md):
// - log_entries_type_idx and log_entries_type_status_idx keep only the other types (bounces,
//   complaints), which a type filter needs them for. A filter on `send` reads the page index, or
//   with a status the status index, and skips the few others (logs/type-condition.ts).
// - log_entries_status_idx also carries `type`, so that the counts of a range's part hours by
//   (type, status) (stats/counters-repository.ts) still read an index alone, as they did the
//   (type, status) index when it held every entry.
// On PostgreSQL, rebuilding them locks the log's writes for as long as building three indexes takes.
const SPARED = sql`where type <> 'send'`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('log_entries_type_idx').execute();
  await db.schema.dropIndex('log_entries_type_status_idx').execute();
  await db.schema.dropIndex('log_entries_status_idx').execute();
  await sql`create index log_entries_type_idx on log_entries (workspace_id, type, created_at, id) ${SPARED}`.execute(db);
  await sql`create index log_entries_type_status_idx on log_entries (workspace_id, type, status, created_at, id) ${SPARED}`.execute(db);
  await db.schema.createIndex('log_entries_status_idx').on('log_entries').columns(['workspace_id', 'status', 'created_at', 'id', 'type']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('log_entries_type_idx').execute();
  await db.schema.dropIndex('log_entries_type_status_idx').execute();
  await db.schema.dropIndex('log_entries_status_idx').execute();
  await db.schema.createIndex('log_entries_type_idx').on('log_entries').columns(['workspace_id', 'type', 'created_at', 'id']).execute();
  await db.schema.createIndex('log_entries_type_status_idx').on('log_entries').columns(['workspace_id', 'type', 'status', 'created_at', 'id']).execute();
  await db.schema.createIndex('log_entries_status_idx').on('log_entries').columns(['workspace_id', 'status', 'created_at', 'id']).execute();
}
