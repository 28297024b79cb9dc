import type { Store } from '../db/store.js';
import { addMs, ceilTo, DAY_MS, floorTo, HOUR_MS, parseRange } from '../lib/time-range.js';
import { seriesRange } from '../stats/index.js';
import { ALL_COUNTS, type EngagementSums } from './engagement-repository.js';

/** GET /v1/send/stats/engagement: opens and clicks, then the recipients handed over with tracking on (what rates are of). */
export type Engagement = EngagementSums;
export type EngagementBucket = Engagement & { bucket_start: string };

const zero = (): Engagement => Object.fromEntries(ALL_COUNTS.map((c) => [c, 0])) as Engagement;

/**
 * Engagement counted per hour (engagement_hourly): a range's ends are widened
 * to whole hours, `since` down and `until` up, as the counts are kept no
 * finer. Opens and clicks count in the hour they happened, tracked recipients
 * in the hour they were handed over.
 */
export function createEngagementStats(store: Pick<Store, 'engagement'>, now: () => Date = () => new Date()) {
  return {
    async totals(workspaceId: string, query: { since?: string | undefined; until?: string | undefined }): Promise<Engagement> {
      const range = parseRange(query);
      const since = range.since === undefined ? undefined : floorTo(range.since, HOUR_MS);
      const until = range.until === undefined ? undefined : ceilTo(range.until, HOUR_MS);
      return store.engagement.sums(workspaceId, since, until);
    },

    /** Per hour or day (UTC), zero-filled, oldest first: the same buckets as /v1/send/stats/timeseries. */
    async timeseries(workspaceId: string, query: { interval?: 'hour' | 'day' | undefined; since?: string | undefined; until?: string | undefined }): Promise<EngagementBucket[]> {
      const { interval, starts } = seriesRange(query, now());
      const step = interval === 'hour' ? HOUR_MS : DAY_MS;
      const since = starts[0]!;
      const until = addMs(starts[starts.length - 1]!, step);
      const buckets = starts.map((bucket_start) => ({ bucket_start, ...zero() }));
      for (const row of await store.engagement.hours(workspaceId, since, until)) {
        const bucket = buckets[Math.floor((Date.parse(row.hour) - Date.parse(since)) / step)];
        if (!bucket) continue;
        for (const column of ALL_COUNTS) bucket[column] += row[column];
      }
      return buckets;
    },
  };
}
