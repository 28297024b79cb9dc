import type { MetricObjectWithValues, MetricValue } from 'prom-client';

/** Set in the environment of the worker process `serve` starts (worker-supervisor.ts): it then listens on its IPC channel. */
export const SUPERVISED_ENV = 'MAILROOM_SUPERVISED_WORKER';

/** From `serve` to its worker process. */
export type ToWorker =
  /** A send was accepted: look for due jobs now rather than at the next poll. */
  | { type: 'wake' }
  /** Answer the counts this worker keeps (a `metrics` reply with the same id). */
  | { type: 'metrics'; id: number };

/** From the worker process to `serve`. */
export type FromWorker = { type: 'metrics'; id: number; metrics: MetricObjectWithValues<MetricValue<string>>[] };

/**
 * The metrics the worker process counts and `serve` does not: what `serve`'s
 * scrape adds from it. The rest (HTTP, sends, inbound reports, the store's
 * gauges, the process's own CPU, memory and event loop) are `serve`'s.
 */
export const WORKER_METRICS = new Set([
  'mailroom_delivery_outcomes_total',
  'mailroom_provider_errors_total',
  'mailroom_webhook_deliveries_total',
  'mailroom_retention_pruned_rows_total',
]);
