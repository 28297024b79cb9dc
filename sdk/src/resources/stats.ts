import type { Result } from '../result.js';
import type { Transport } from '../transport.js';
import type { Stats as StatsData, StatsBucket, StatsParams, TimeseriesParams } from '../types.js';

/** GET /v1/send/stats and its time series. */
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
}
