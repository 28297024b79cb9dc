import type { Interval } from './period';
import type { Bucket, Stats } from './stats';

export interface ChartSeries {
  field: keyof Stats;
  label: string;
  colour: string;
  /** A line pattern besides the colour, so that no series is told apart by colour alone. */
  dash: number[];
}

/** The chart's lines: suppressed is left out (it never reached a provider, and the figure above shows it). */
export const CHART_SERIES: readonly ChartSeries[] = [
  { field: 'total_sent', label: 'Sent', colour: '#2453d4', dash: [] },
  { field: 'delivered', label: 'Delivered', colour: '#067647', dash: [8, 4] },
  { field: 'bounced', label: 'Bounced', colour: '#b42318', dash: [2, 3] },
  { field: 'complained', label: 'Complained', colour: '#b54708', dash: [10, 3, 2, 3] },
  { field: 'failed', label: 'Failed', colour: '#6941c6', dash: [4, 4] },
];

const UTC_HOUR = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
const UTC_DAY = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' });

/** A bucket's start as people read it: buckets are UTC hours or days, so the label says UTC. */
export function bucketLabel(start: string, interval: Interval): string {
  const date = new Date(start);
  return interval === 'hour' ? `${UTC_HOUR.format(date)} UTC` : UTC_DAY.format(date);
}

/** The buckets in which anything happened: the rows of the text alternative. */
export function busyBuckets(buckets: readonly Bucket[]): Bucket[] {
  return buckets.filter((b) => CHART_SERIES.some((s) => b[s.field] > 0));
}

/** One sentence for screen readers: the totals and the busiest bucket; the table holds the rest. */
export function seriesSummary(buckets: readonly Bucket[], interval: Interval, periodLabel: string): string {
  const unit = interval === 'hour' ? 'hour' : 'day';
  const totals = CHART_SERIES.map((s) => `${buckets.reduce((n, b) => n + b[s.field], 0).toLocaleString()} ${s.label.toLowerCase()}`).join(', ');
  const busiest = buckets.reduce<Bucket | undefined>((top, b) => (b.total_sent > (top?.total_sent ?? 0) ? b : top), undefined);
  const peak = busiest ? ` The busiest ${unit}: ${bucketLabel(busiest.bucket_start, interval)}, ${busiest.total_sent.toLocaleString()} sent.` : '';
  return `Chart of mail per ${unit} over the last ${periodLabel}: ${totals}.${peak}`;
}
