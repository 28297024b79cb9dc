import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { LogStatus, LogType } from '../db/schema.js';
import { LOG_COUNT_COLUMNS } from './log-count-columns.js';
import { seriesJson, type Interval } from './series-json.js';
import type { CounterRow } from './stats.js';

export type { CounterRow };

/** How many log entries of one (type, status) there are in some span. */
const counted = (rows: { type: LogType; status: LogStatus; count: unknown }[]): CounterRow[] =>
  // PostgreSQL answers bigint sums as text, to stay exact.
  rows.map((r) => ({ type: r.type, status: r.status, count: Number(r.count) }));

/** One hourly row (or a sum of them) as counts per (type, status); PostgreSQL's bigints arrive as text. */
function countsOf(row: Partial<Record<string, unknown>> | undefined): CounterRow[] {
  return LOG_COUNT_COLUMNS.map((c) => ({ type: c.type, status: c.status, count: Number(row?.[c.column] ?? 0) })).filter((c) => c.count !== 0);
}

/**
 * Reads of the counts the logs repository keeps (log_counters, and
 * log_hourly_counts per hour of the entries' creation), and the one count of
 * entries themselves that ranges need: the part hours at a range's ends.
 */
export function createCountersRepository(db: Db) {
  const hourlyTotalsQuery = (workspaceId: string, fromHour: string | undefined, toHour: string | undefined) => {
    let query = db
      .selectFrom('log_hourly_counts')
      .select(LOG_COUNT_COLUMNS.map((c) => sql<string>`sum(${sql.ref(c.column)})`.as(c.column)))
      .where('workspace_id', '=', workspaceId);
    if (fromHour !== undefined) query = query.where('hour', '>=', fromHour);
    if (toHour !== undefined) query = query.where('hour', '<', toHour);
    return query;
  };
  // One count per (type, status) the counters keep, each read off the status index by its status and time
  // and its type there (migration 0022 put the type in it). On SQLite a GROUP BY over those entries sorted
  // them all in a temporary B-tree first: 270 µs a part hour of 1,000 entries against 97 (bench/README).
  const entriesBetweenQuery = (workspaceId: string, since: string, until: string) => {
    const [first, ...rest] = LOG_COUNT_COLUMNS.map(({ type, status }) =>
      db.selectNoFrom((eb) => [
        sql<LogType>`${sql.lit(type)}`.as('type'),
        sql<LogStatus>`${sql.lit(status)}`.as('status'),
        eb
          .selectFrom('log_entries')
          .select((count) => count.fn.countAll().as('n'))
          .where('workspace_id', '=', workspaceId)
          .where('status', '=', sql.lit(status))
          .where('type', '=', sql.lit(type))
          .where('created_at', '>=', since)
          .where('created_at', '<', until)
          .as('count'),
      ]),
    );
    return rest.reduce((union, next) => union.unionAll(next), first!);
  };

  return {
    /** At most one row per (type, status): a read whose cost does not grow with the log. */
    async totals(workspaceId: string): Promise<CounterRow[]> {
      return counted(await db.selectFrom('log_counters').select(['type', 'status', 'count']).where('workspace_id', '=', workspaceId).execute());
    },

    /** The hours in [fromHour, toHour) (either end open when undefined), added up: one row per hour read. */
    async hourlyTotals(workspaceId: string, fromHour: string | undefined, toHour: string | undefined): Promise<CounterRow[]> {
      return countsOf(await hourlyTotalsQuery(workspaceId, fromHour, toHour).executeTakeFirst());
    },

    /** The time series of the buckets starting at `starts` (consecutive, one interval apart), as the JSON text of its buckets (series-json.ts). */
    async seriesJson(workspaceId: string, starts: string[], interval: Interval): Promise<string> {
      return seriesJson(db, workspaceId, starts, interval);
    },

    /**
     * Entries created in [since, until), counted per (type, status): for spans
     * shorter than an hour only. Each pair is counted off the status index alone.
     */
    async entriesBetween(workspaceId: string, since: string, until: string): Promise<CounterRow[]> {
      return counted(await entriesBetweenQuery(workspaceId, since, until).execute()).filter((c) => c.count !== 0);
    },

    /** The queries behind hourlyTotals and entriesBetween, for their plans (test/log-search-plans.test.ts). */
    hourlyTotalsQuery,
    entriesBetweenQuery,
  };
}

declare module '../db/store.js' {
  interface Repositories {
    counters: ReturnType<typeof createCountersRepository>;
  }
}
