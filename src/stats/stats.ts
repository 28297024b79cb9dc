import type { LogStatus, LogType } from '../db/schema.js';
import { LOG_COUNT_COLUMNS, type LogCountColumn } from './log-count-columns.js';

/** One (type, status) count of the hourly counters, or a sum of them. */
export interface CounterRow {
  type: LogType;
  status: LogStatus;
  count: number;
}

/** SPEC.md §2.4, derived from the log as docs/logs-and-stats.md's "Statistics" states. */
export interface Stats {
  total_sent: number;
  delivered: number;
  bounced: number;
  complained: number;
  suppressed: number;
  failed: number;
}

/** The entries counted in `rows` that match a log filter's type and status (each optional). */
export function sumMatching(rows: CounterRow[], filter: { type?: LogType | undefined; status?: LogStatus | undefined }): number {
  return rows
    .filter((c) => (!filter.type || c.type === filter.type) && (!filter.status || c.status === filter.status))
    .reduce((total, c) => total + c.count, 0);
}

type LogFilterOf = { type?: LogType; status?: LogStatus };

/** Each statistic is the total of one log filter (docs/logs-and-stats.md, "Statistics"): the one place that says which. */
export const STAT_FILTERS: Readonly<Record<keyof Stats, LogFilterOf>> = {
  total_sent: { type: 'send' },
  delivered: { type: 'send', status: 'delivered' },
  bounced: { type: 'send', status: 'bounced' },
  complained: { type: 'complaint' },
  suppressed: { type: 'send', status: 'suppressed' },
  failed: { type: 'send', status: 'failed' },
};

export const STAT_NAMES = Object.keys(STAT_FILTERS) as (keyof Stats)[];

/** The six statistics of a set of counts. */
export function statsOf(rows: CounterRow[]): Stats {
  return Object.fromEntries(STAT_NAMES.map((name) => [name, sumMatching(rows, STAT_FILTERS[name])])) as unknown as Stats;
}

/** The columns of log_hourly_counts a statistic adds up. */
export function statColumns(name: keyof Stats): LogCountColumn[] {
  const { type, status } = STAT_FILTERS[name];
  return LOG_COUNT_COLUMNS.filter((c) => (!type || c.type === type) && (!status || c.status === status)).map((c) => c.column);
}
