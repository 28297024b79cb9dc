import type { LogFilter } from './period';

/** SPEC.md §2.4: what GET /v1/send/stats answers. */
export interface Stats {
  total_sent: number;
  delivered: number;
  bounced: number;
  complained: number;
  suppressed: number;
  failed: number;
}

/** One bucket of GET …/stats/timeseries. */
export interface Bucket extends Stats {
  bucket_start: string;
}

export interface Figure {
  field: keyof Stats;
  label: string;
  /** The logs whose total the figure is (the server's STAT_FILTERS), so a click shows exactly what was counted. */
  filter: LogFilter;
}

export const FIGURES: readonly Figure[] = [
  { field: 'total_sent', label: 'Sent', filter: { type: 'send' } },
  { field: 'delivered', label: 'Delivered', filter: { status: 'delivered', type: 'send' } },
  { field: 'bounced', label: 'Bounced', filter: { status: 'bounced', type: 'send' } },
  { field: 'complained', label: 'Complained', filter: { type: 'complaint' } },
  { field: 'suppressed', label: 'Suppressed', filter: { status: 'suppressed', type: 'send' } },
  { field: 'failed', label: 'Failed', filter: { status: 'failed', type: 'send' } },
];

export const figureOf = (field: keyof Stats): Figure => FIGURES.find((f) => f.field === field)!;
