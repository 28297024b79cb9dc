/**
 * The Overview's periods and what each asks of the API. A period is a whole
 * number of the time series' buckets (UTC hours or days, as the server makes
 * them) ending with the current one, so that the six figures, the chart and
 * the rates count the same entries, and the logs' `since` is the chart's first
 * bucket.
 */
export type Interval = 'hour' | 'day';

export interface Period {
  label: string;
  interval: Interval;
  /** Buckets shown, the current (partial) one included. */
  buckets: number;
}

const HOUR_MS = 3_600_000;
const STEP_MS: Record<Interval, number> = { hour: HOUR_MS, day: 24 * HOUR_MS };

/**
 * Hours for a day and a week (168 points still read as a line), days for a
 * month: 720 hourly points are more than a phone's 350 pixels can show, and
 * 30 daily rows are what the server sums fastest (bench/README.md).
 */
export const PERIODS: readonly Period[] = [
  { label: '24 hours', interval: 'hour', buckets: 24 },
  { label: '7 days', interval: 'hour', buckets: 24 * 7 },
  { label: '30 days', interval: 'day', buckets: 30 },
];

/** The start of the period's first bucket: this hour (or UTC day) and the buckets before it. */
export function periodStart(period: Period, now: number): string {
  const step = STEP_MS[period.interval];
  return new Date((Math.floor(now / step) - (period.buckets - 1)) * step).toISOString();
}

/** The log filter whose total is a statistic (src/stats/stats.ts, README "Statistics"). */
export interface LogFilter {
  status?: string;
  type?: string;
}

/**
 * A link to the logs explorer showing what a figure counts, from `since` on.
 * Parameters in the order the logs page writes them back (log-filters.ts),
 * so the address it shows is the one followed.
 */
export function logsLink(filter: LogFilter, since: string): string {
  const query = new URLSearchParams();
  if (filter.status) query.set('status', filter.status);
  if (filter.type) query.set('type', filter.type);
  query.set('since', since);
  return `/logs?${query}`;
}
