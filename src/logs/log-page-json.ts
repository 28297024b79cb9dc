import { sql, type Expression, type Kysely, type RawBuilder } from 'kysely';
import { storeKindOfDb } from '../db/database.js';
import { LOG_COUNT_COLUMNS, rangeParts } from '../stats/index.js';
import type { LogFilter } from './log-filter.js';
import { typeIs } from './type-condition.js';

/** The fields of a log entry as the API shows it, in its order, under the names the page query gives them. */
const VIEW_FIELDS = ['id', 'type', 'status', 'to', 'from_email', 'subject', 'message_id', 'error', 'created_at'] as const;

/** Whether a filter's total is counted off its index (capped), rather than read from the counters: it names a message, a recipient, a sender or a tag. */
export function countedOffIndex(filter: LogFilter): boolean {
  return filter.message_id !== undefined || filter.to !== undefined || filter.from_email !== undefined || filter.tag !== undefined;
}

/**
 * The total a filter's X-Total-Count reads, as one SQL expression: the
 * counters when the filter is only type, status and a time range (all time:
 * log_counters; a range: its whole hours' columns that match, and its part
 * hours counted), else the capped count off the filter's index.
 */
function totalExpression(workspaceId: string, filter: LogFilter, cappedCount: Expression<unknown>, postgres: boolean): RawBuilder<unknown> {
  if (countedOffIndex(filter)) return sql`(${cappedCount})`;
  const ofType = filter.type === undefined ? sql`` : sql` and ${typeIs(filter.type, postgres)}`;
  const ofStatus = filter.status === undefined ? sql`` : sql` and status = ${filter.status}`;
  if (filter.since === undefined && filter.until === undefined) {
    return sql`(select coalesce(sum(count), 0) from log_counters where workspace_id = ${workspaceId}${ofType}${ofStatus})`;
  }
  const { hours, spans } = rangeParts(filter);
  const parts: RawBuilder<unknown>[] = [];
  const columns = LOG_COUNT_COLUMNS.filter((c) => (!filter.type || c.type === filter.type) && (!filter.status || c.status === filter.status));
  if (hours && columns.length > 0) {
    const from = hours.from === undefined ? sql`` : sql` and hour >= ${hours.from}`;
    const to = hours.to === undefined ? sql`` : sql` and hour < ${hours.to}`;
    parts.push(sql`(select coalesce(sum(${sql.join(columns.map((c) => sql.ref(c.column)), sql` + `)}), 0) from log_hourly_counts where workspace_id = ${workspaceId}${from}${to})`);
  }
  for (const [since, until] of spans) {
    parts.push(sql`(select count(*) from log_entries where workspace_id = ${workspaceId}${ofType}${ofStatus} and created_at >= ${since} and created_at < ${until})`);
  }
  return parts.length === 0 ? sql`0` : sql.join(parts, sql` + `);
}

/**
 * One page of the log and its total in one statement, the page written as the
 * JSON array the API answers by the store itself (SQLite's json_group_array,
 * PostgreSQL's json_agg). One statement is one snapshot, so the page and its
 * total agree without a transaction around them; on PostgreSQL it is also one
 * round trip instead of five (begin, page, counts, commit), and on either
 * store no row object is made and serialised again.
 */
export function logPageJsonQuery(
  db: Kysely<any>,
  page: Expression<unknown>,
  workspaceId: string,
  filter: LogFilter,
  cappedCount: Expression<unknown>,
): RawBuilder<{ entries: string; total: number | string }> {
  const sqlite = storeKindOfDb(db) === 'sqlite';
  // The stored tags object as JSON (not as a string holding JSON), in its stored order; `{}` when none.
  const tags = sqlite ? sql`json(coalesce(p.tags, '{}'))` : sql`coalesce(p.tags, '{}')::json`;
  const fields = sql.join([...VIEW_FIELDS.map((name) => sql`${sql.lit(name)}, ${sql.ref(`p.${name}`)}`), sql`'tags', ${tags}`]);
  const order = sql`${sql.ref('p.created_at')} desc, ${sql.ref('p.id')} desc`;
  const entries = sqlite
    ? sql`(select json_group_array(json_object(${fields}) order by ${order}) from (${page}) as p)`
    : sql`(select coalesce(json_agg(json_build_object(${fields}) order by ${order}), '[]')::text from (${page}) as p)`;
  return sql<{ entries: string; total: number | string }>`select ${entries} as entries, ${totalExpression(workspaceId, filter, cappedCount, !sqlite)} as total`;
}
