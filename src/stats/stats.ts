import type { LogStatus, LogType } from '../db/schema.js';
import type { CounterRow } from './counters-repository.js';

/** SPEC.md §2.4, derived from the log as the README's "Statistics" section states. */
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

/** The six statistics of a set of counts; each equals the total of a log filter (README, "Statistics"). */
export function statsOf(rows: CounterRow[]): Stats {
  return {
    total_sent: sumMatching(rows, { type: 'send' }),
    delivered: sumMatching(rows, { type: 'send', status: 'delivered' }),
    bounced: sumMatching(rows, { type: 'send', status: 'bounced' }),
    complained: sumMatching(rows, { type: 'complaint' }),
    suppressed: sumMatching(rows, { type: 'send', status: 'suppressed' }),
    failed: sumMatching(rows, { type: 'send', status: 'failed' }),
  };
}
