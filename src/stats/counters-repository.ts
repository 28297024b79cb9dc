import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { LogStatus, LogType } from '../db/schema.js';
import { LOG_COUNT_COLUMNS } from '../repositories/log-count-columns.js';
import { seriesJsonQuery, type Interval } from './series-json.js';

/** How many log entries of one (type, status) there are in some span. */
export interface CounterRow {
  type: LogType;
  status: LogStatus;
  count: number;
}

const TYPES = [...new Set(LOG_COUNT_COLUMNS.map((c) => c.type))];
const STATUSES = [...new Set(LOG_COUNT_COLUMNS.map((c) => c.status))];

const counted = (rows: { type: LogType; status: LogStatus; count: unknown }[]): CounterRow[] =>
  // PostgreSQL answers bigint sums as text, to stay exact.
  rows.map((r) => ({ type: r.type, status: r.status, count: Number(r.count) }));

/** One hourly row (or a sum of them) as counts per (type, status); PostgreSQL's bigints arrive as text. */
function countsOf(row: Partial<Record<string, unknown>> | undefined): CounterRow[] {
  return LOG_COUNT_COLUMNS.map((c) => ({ type: c.type, status: c.status, count: Number(row?.[c.column] ?? 0) })).filter((c) => c.count !== 0);
}

/** What a range's counts are read from: whole hours of the hourly counts, and spans (under an hour) of entries. */
export interface RangeParts {
  /** The hours in [from, to), either end open when undefined; null for none. */
  hours: { from: string | undefined; to: string | undefined } | null;
  /** [since, until) spans shorter than an hour, counted off the entries. */
  spans: Array<[string, string]>;
}

/**
 * Reads of the counts the logs repository keeps (log_counters, and
 * log_hourly_counts per hour of the entries' creation), and the one count of
 * entries themselves that ranges need: the part hours at a range's ends.
 */
export function createCountersRepository(db: Db) {
  const columns = LOG_COUNT_COLUMNS.map((c) => c.column);
  /**
   * One statement for the whole range, added up by the store: the hourly rows
   * of its whole hours, and the entries of its part hours counted per pair
   * over the (type, status, created_at) index (the pairs named, a short IN
   * list each, so the index alone answers).
   */
  const rangeCountsQuery = (workspaceId: string, { hours, spans }: RangeParts) => {
    const parts = [];
    if (hours) {
      const from = hours.from === undefined ? sql`` : sql` and hour >= ${hours.from}`;
      const to = hours.to === undefined ? sql`` : sql` and hour < ${hours.to}`;
      parts.push(sql`select ${sql.join(columns.map((c) => sql`sum(${sql.ref(c)}) as ${sql.ref(c)}`))} from log_hourly_counts where workspace_id = ${workspaceId}${from}${to}`);
    }
    for (const [since, until] of spans) {
      const pairs = LOG_COUNT_COLUMNS.map((c) => sql`sum(case when type = ${sql.lit(c.type)} and status = ${sql.lit(c.status)} then 1 else 0 end) as ${sql.ref(c.column)}`);
      parts.push(sql`select ${sql.join(pairs)} from log_entries where workspace_id = ${workspaceId}
        and type in (${sql.join(TYPES.map((t) => sql.lit(t)))}) and status in (${sql.join(STATUSES.map((st) => sql.lit(st)))})
        and created_at >= ${since} and created_at < ${until}`);
    }
    return sql<Record<string, unknown>>`select ${sql.join(columns.map((c) => sql`sum(${sql.ref(c)}) as ${sql.ref(c)}`))} from (${sql.join(parts, sql` union all `)}) as parts`;
  };

  return {
    /** At most one row per (type, status): a read whose cost does not grow with the log. */
    async totals(workspaceId: string): Promise<CounterRow[]> {
      return counted(await db.selectFrom('log_counters').select(['type', 'status', 'count']).where('workspace_id', '=', workspaceId).execute());
    },

    /** How many entries of each (type, status) the range's parts hold, added up. */
    async rangeCounts(workspaceId: string, parts: RangeParts): Promise<CounterRow[]> {
      const { rows } = await rangeCountsQuery(workspaceId, parts).execute(db);
      return countsOf(rows[0]);
    },

    /** The time series of the buckets starting at `starts` (consecutive, one interval apart), as the JSON text of its buckets (series-json.ts). */
    async seriesJson(workspaceId: string, starts: string[], interval: Interval): Promise<string> {
      const { rows } = await seriesJsonQuery(db, workspaceId, starts, interval).execute(db);
      return rows[0]?.series ?? '[]';
    },

    /** The query behind rangeCounts, for its plan (test/log-search-plans.test.ts). */
    rangeCountsQuery,
  };
}
