import type { LogStatus, LogType } from '../db/schema.js';

/**
 * The (type, status) pairs a log entry can have, each a column of
 * log_hourly_counts: a `send` entry moves along the status table, a `bounce`
 * entry is always `bounced` and a `complaint` entry `complained`
 * (sending/send-status.ts). One row per hour holds all of them, so a range
 * of hours is as many rows as hours, and a time series' buckets come straight
 * off them. A new status is a new column (a migration).
 */
export const LOG_COUNT_COLUMNS = [
  { type: 'send', status: 'sent', column: 'send_sent' },
  { type: 'send', status: 'delivered', column: 'send_delivered' },
  { type: 'send', status: 'bounced', column: 'send_bounced' },
  { type: 'send', status: 'failed', column: 'send_failed' },
  { type: 'send', status: 'suppressed', column: 'send_suppressed' },
  { type: 'bounce', status: 'bounced', column: 'bounce_bounced' },
  { type: 'complaint', status: 'complained', column: 'complaint_complained' },
] as const satisfies ReadonlyArray<{ type: LogType; status: LogStatus; column: string }>;

export type LogCountColumn = (typeof LOG_COUNT_COLUMNS)[number]['column'];

const BY_PAIR = new Map<string, LogCountColumn>(LOG_COUNT_COLUMNS.map((c) => [`${c.type}\0${c.status}`, c.column]));

/** The column counting entries of (type, status); a pair no entry can have is a programming error. */
export function countColumnOf(type: LogType, status: LogStatus): LogCountColumn {
  const column = BY_PAIR.get(`${type}\0${status}`);
  if (!column) throw new Error(`No log entry is counted as type ${type} with status ${status}`);
  return column;
}
