import { ValidationError } from '../lib/errors.js';
import type { Store } from '../db/store.js';
import { addMs, ceilTo, DAY_MS, floorTo, HOUR_MS, parseRange } from '../lib/time-range.js';
import { countsInRange } from './range-counts.js';
import type { Interval } from './series-json.js';
import { statsOf, type Stats } from './stats.js';

/** Buckets one time series may have: 31 days of hours. */
export const MAX_BUCKETS = 744;

const INTERVAL_MS: Record<Interval, number> = { hour: HOUR_MS, day: DAY_MS };
/** The span a series covers when `since` is not given: a day of hours, or 30 days. */
const DEFAULT_SPAN_MS: Record<Interval, number> = { hour: DAY_MS, day: 30 * DAY_MS };

/** One bucket of a time series. */
export interface StatsBucket extends Stats {
  bucket_start: string;
}

/** A time series as JSON text: an array of StatsBucket, written by the store (series-json.ts). */
export type StatsSeriesJson = string;

export interface SeriesQuery {
  interval?: Interval | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

/**
 * The ISO 8601 start of each bucket. A month of hours is 720 of them: written
 * a day at a time (`toISOString` once a day, the hours by hand), as 720 calls
 * of `toISOString` took a sixth of the request.
 */
export function bucketStarts(since: string, count: number, interval: Interval): string[] {
  const starts: string[] = [];
  const sinceMs = Date.parse(since);
  let day = '';
  for (let i = 0; i < count; i++) {
    const ms = sinceMs + i * INTERVAL_MS[interval];
    const hour = Math.floor(ms / HOUR_MS) % 24;
    if (interval === 'day' || hour === 0 || day === '') day = new Date(ms).toISOString().slice(0, 10);
    starts.push(`${day}T${hour < 10 ? '0' : ''}${hour}:00:00.000Z`);
  }
  return starts;
}

/**
 * The buckets a series query asks for: per hour or per day (UTC), the ends widened to whole buckets,
 * `since` down to the start of its bucket, `until` up to the end of its own; a day of hours or 30 days
 * back from `until` (now) without `since`. Refused past MAX_BUCKETS.
 */
export function seriesRange(query: SeriesQuery, now: Date): { interval: Interval; starts: string[] } {
  const interval = query.interval ?? 'day';
  const step = INTERVAL_MS[interval];
  const range = parseRange(query);
  const until = ceilTo(range.until ?? now.toISOString(), step);
  const since = floorTo(range.since ?? addMs(until, -DEFAULT_SPAN_MS[interval]), step);
  if (since >= until) throw new ValidationError('until must be later than since');
  const buckets = (Date.parse(until) - Date.parse(since)) / step;
  if (buckets > MAX_BUCKETS) {
    throw new ValidationError(`The range holds ${buckets} ${interval === 'hour' ? 'hours' : 'days'}; a time series has at most ${MAX_BUCKETS} buckets`);
  }
  return { interval, starts: bucketStarts(since, buckets, interval) };
}

export function createStatsService(store: Store, now: () => Date = () => new Date()) {
  return {
    /** SPEC.md's statistics for the workspace; with `since`/`until`, for the entries created in that range. */
    async stats(workspaceId: string, query: { since?: string | undefined; until?: string | undefined } = {}): Promise<Stats> {
      const range = parseRange(query);
      // Several reads (whole hours, the part hours at the ends): one snapshot, so a write in between cannot tear them.
      return statsOf(await store.snapshot((repos) => countsInRange(repos, workspaceId, range)));
    },

    /**
     * The statistics per hour or per day (UTC) of the entries created in each,
     * zero-filled. The ends are widened to whole buckets: `since` down to the
     * start of its bucket, `until` up to the end of its own.
     */
    async timeseries(workspaceId: string, query: SeriesQuery): Promise<StatsSeriesJson> {
      const { interval, starts } = seriesRange(query, now());
      return store.counters.seriesJson(workspaceId, starts, interval);
    },
  };
}
