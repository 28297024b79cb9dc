import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { LogStatus, LogType } from '../db/schema.js';

/** How many log entries of one (type, status) there are in some span. */
export interface CounterRow {
  type: LogType;
  status: LogStatus;
  count: number;
}

export interface HourlyCounterRow extends CounterRow {
  hour: string;
}

const counted = (rows: { type: LogType; status: LogStatus; count: unknown }[]): CounterRow[] =>
  // PostgreSQL answers bigint sums as text, to stay exact.
  rows.map((r) => ({ type: r.type, status: r.status, count: Number(r.count) }));

/**
 * Reads of the counters the logs repository keeps (log_counters, and
 * log_hourly_counters per hour of the entries' creation), and the one count of
 * entries themselves that ranges need: the part hours at a range's ends.
 */
export function createCountersRepository(db: Db) {
  return {
    /** At most one row per (type, status): a read whose cost does not grow with the log. */
    async totals(workspaceId: string): Promise<CounterRow[]> {
      return counted(await db.selectFrom('log_counters').select(['type', 'status', 'count']).where('workspace_id', '=', workspaceId).execute());
    },

    /** The hourly counters of the hours in [fromHour, toHour) (either end open when undefined), added up per (type, status). */
    async hourlyTotals(workspaceId: string, fromHour: string | undefined, toHour: string | undefined): Promise<CounterRow[]> {
      let query = db
        .selectFrom('log_hourly_counters')
        .select(['type', 'status', sql<string>`sum(count)`.as('count')])
        .where('workspace_id', '=', workspaceId);
      if (fromHour !== undefined) query = query.where('hour', '>=', fromHour);
      if (toHour !== undefined) query = query.where('hour', '<', toHour);
      return counted(await query.groupBy(['type', 'status']).execute());
    },

    /** The hourly counters of the hours in [fromHour, toHour), one row per hour and (type, status) that has any. */
    async hourly(workspaceId: string, fromHour: string, toHour: string): Promise<HourlyCounterRow[]> {
      const rows = await db
        .selectFrom('log_hourly_counters')
        .select(['hour', 'type', 'status', 'count'])
        .where('workspace_id', '=', workspaceId)
        .where('hour', '>=', fromHour)
        .where('hour', '<', toHour)
        .execute();
      return rows.map((r) => ({ hour: r.hour, type: r.type, status: r.status, count: Number(r.count) }));
    },

    /** Entries created in [since, until), counted per (type, status): for spans shorter than an hour only. */
    async entriesBetween(workspaceId: string, since: string, until: string): Promise<CounterRow[]> {
      const rows = await db
        .selectFrom('log_entries')
        .select(['type', 'status', (eb) => eb.fn.countAll().as('count')])
        .where('workspace_id', '=', workspaceId)
        .where('created_at', '>=', since)
        .where('created_at', '<', until)
        .groupBy(['type', 'status'])
        .execute();
      return counted(rows);
    },
  };
}
