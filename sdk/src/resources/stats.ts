import type { Result } from '../result.js';
import type { Transport } from '../transport.js';
import type { Engagement, EngagementBucket, Stats as StatsData, StatsBucket, StatsParams, TimeseriesParams } from '../types.js';

/** GET /v1/send/stats and its time series, and the engagement of tracked mail beside them. */
export class Stats {
  constructor(private readonly transport: Transport) {}

  /** All time; with `since` and/or `until`, for the entries created in that range. */
  get(params: StatsParams = {}): Promise<Result<StatsData>> {
    return this.transport.call({ method: 'GET', path: '/v1/send/stats', query: { ...params } });
  }

  /** One bucket per hour or day (UTC), oldest first, zero-filled. */
  timeseries(params: TimeseriesParams = {}): Promise<Result<StatsBucket[]>> {
    return this.transport.call({ method: 'GET', path: '/v1/send/stats/timeseries', query: { ...params } });
  }

  /** Opens and clicks of tracked mail, machines apart, and the tracked recipients they are rates of (whole hours). */
  engagement(params: StatsParams = {}): Promise<Result<Engagement>> {
    return this.transport.call({ method: 'GET', path: '/v1/send/stats/engagement', query: { ...params } });
  }

  /** The same per hour or day (UTC), oldest first, zero-filled. */
  engagementTimeseries(params: TimeseriesParams = {}): Promise<Result<EngagementBucket[]>> {
    return this.transport.call({ method: 'GET', path: '/v1/send/stats/engagement/timeseries', query: { ...params } });
  }
}
