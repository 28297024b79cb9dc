import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { Config } from '../config.js';

/** What `serve` gives its delivery thread at start (workerData). */
export interface DeliveryThreadData {
  /** serve's configuration, secret key included (a KeyObject crosses to a thread), with the thread's share of the grace. */
  config: Config;
  /** The thread's nice value (WORKER_NICE). */
  nice: number;
}

/** From `serve` to its delivery thread. */
export type ToWorker =
  /** A send was accepted: look for due jobs now rather than at the next poll. */
  | { type: 'wake' }
  /** The HTTP thread became busy, or calm again (api-load.ts): delivery yields to it meanwhile. */
  | { type: 'api-busy'; busy: boolean }
  /** Answer the counts this worker keeps (a `metrics` reply with the same id). */
  | { type: 'metrics'; id: number }
  /** Stop as on SIGTERM: deliveries in flight finish or are given back, the store is closed, the thread ends. */
  | { type: 'stop' };

/** From the delivery thread to `serve`. */
export type FromWorker =
  /** Its worker runs, on the thread `tid` (Linux; undefined elsewhere) at `nice`, or undefined where it could not be lowered. */
  | { type: 'started'; tid: number | undefined; nice: number | undefined }
  | { type: 'metrics'; id: number; metrics: MetricObjectWithValues<MetricValue<string>>[] };
