import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { poolUseOf, storeKindOfDb, type Db } from '../db/database.js';
import type { OffThreadReads } from '../db/sqlite-reader.js';
import { createBacklogRepository } from './backlog-repository.js';
import { createUpstreamGauge } from './upstream-gauge.js';

/** The ways a send comes in, for `mailroom_sends_total{way}`. */
/**
 * The metrics the delivery thread counts and `serve`'s own registry does not:
 * what `serve`'s scrape adds from it. The rest (HTTP, sends, inbound reports,
 * the store's gauges, the process's own CPU, memory and event loop) are
 * `serve`'s.
 */
export const WORKER_METRICS = new Set([
  'mailroom_delivery_outcomes_total',
  'mailroom_provider_errors_total',
  'mailroom_webhook_deliveries_total',
  'mailroom_retention_pruned_rows_total',
]);

export type SendWay = 'http' | 'batch' | 'smtp' | 'resend' | 'dashboard';

/** What one inbound report came to, for `mailroom_inbound_reports_total` (inbound/inbound-report-service.ts' verdict, narrowed). */
export interface InboundReportSeen {
  outcome: 'recorded' | 'duplicate' | 'ignored';
  results: { kind: string }[];
}

export interface MetricsOptions {
  db: Db;
  /** Provider trouble counted by this process's delivery worker (delivery/provider-trouble.ts), read at scrape time. */
  troubleCounts?: () => { provider: string; host: string; problem: string; count: number }[];
  /** The counts of `serve`'s delivery thread (composition/delivery-thread.ts), added to this registry's at each scrape. */
  workerMetrics?: () => Promise<MetricObjectWithValues<MetricValue<string>>[]>;
  /**
   * Node's process metrics (CPU, memory, GC, the event loop's delay): on by default; off in `serve`'s
   * delivery thread, whose scrape is serve's (the process's figures are serve's to report).
   */
  processMetrics?: boolean;
  /** Where the store-wide gauges are read when not on `db`'s own connection: serve on SQLite (db/sqlite-reader.ts). */
  offThreadReads?: OffThreadReads;
  /** SES_EVENT_TIMEOUT: how long an SES hand-over may go without an event before mailroom_ses_events_overdue counts it. */
  sesEventTimeoutMs?: number;
  /** MAILROOM_PROVIDER's upstreams (`server:smtp`), named by mailroom_upstream_up beside the workspaces' own. */
  serverUpstreams?: readonly string[];
}

/** The gauges read from the store at each scrape, left out of one whose queries failed. */
const STORE_GAUGES = ['mailroom_delivery_queue_jobs', 'mailroom_delivery_queue_oldest_due_age_seconds', 'mailroom_webhook_backlog_deliveries', 'mailroom_ses_events_overdue'] as const;
const UPSTREAM_GAUGE = 'mailroom_upstream_up';

/** Seconds: from a cached page (~1 ms) to a large send that waited for memory (seconds). */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * How often prom-client samples the event loop (its default, set here so the benchmark can read it):
 * `nodejs_eventloop_lag_*` are Node's monitorEventLoopDelay readings, the time between two timer ticks
 * this far apart, so they include the interval itself (an idle loop reads about 10 ms). The delay is
 * what lies above it.
 */
export const EVENT_LOOP_SAMPLE_MS = 10;

/**
 * This process's metrics in Prometheus' text format (prom-client), on a
 * registry of its own: two runtimes in one process (tests) count apart.
 * Counters are this process's since it started; the gauges of the store
 * (queue, webhook backlog) are read from the store at each scrape, so every
 * process on one PostgreSQL shows the same values for them.
 */
export function createMetrics({ db, troubleCounts = () => [], workerMetrics, processMetrics = true, offThreadReads, sesEventTimeoutMs, serverUpstreams = [] }: MetricsOptions) {
  const registry = new Registry();
  // Process CPU, memory, handles, GC, and the event loop's delay (nodejs_eventloop_lag_*: mean, p50, p90, p99, max).
  if (processMetrics) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });

  const httpDuration = new Histogram({
    name: 'mailroom_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern (never the raw URL; "unmatched" when no route matched) and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  const sends = new Counter({
    name: 'mailroom_sends_total',
    help: 'Sends answered, by way in (http, batch, smtp, resend, dashboard) and the status answered (sent, suppressed, failed).',
    labelNames: ['way', 'status'] as const,
    registers: [registry],
  });
  const deliveryOutcomes = new Counter({
    name: 'mailroom_delivery_outcomes_total',
    help: 'Recipients handed to a provider by this process, by provider and outcome (delivered, accepted, temporary, permanent, failed, suppressed), counted once written.',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const webhookOutcomes = new Counter({
    name: 'mailroom_webhook_deliveries_total',
    help: 'Webhook posts by this process, by what they settled: delivered, retrying (a retry is due later) or failed (retries exhausted).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const inboundReports = new Counter({
    name: 'mailroom_inbound_reports_total',
    help: 'Inbound reports received by this process, one per result by kind (delivered, hard_bounce, soft_bounce, complaint, autoreply, none), with what the report came to (recorded, ignored, duplicate).',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  const retentionPruned = new Counter({
    name: 'mailroom_retention_pruned_rows_total',
    help: 'Rows the retention pruner of this process removed, by table (messages_content: messages whose bodies, attachments and MIME were dropped).',
    labelNames: ['table'] as const,
    registers: [registry],
  });
  new Counter({
    name: 'mailroom_provider_errors_total',
    help: 'Provider trouble that was not the recipient\'s fault, by provider, host and problem (connection, timeout, tls, auth, sender, relay-policy, session, smtputf8; and an API\'s throttling, service, account, configuration, request).',
    labelNames: ['provider', 'host', 'problem'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { provider, host, problem, count } of troubleCounts()) this.inc({ provider, host, problem }, count);
    },
  });
  const store = storeKindOfDb(db);
  new Gauge({
    name: 'mailroom_store_connections',
    help: 'Connections to the store by state: total and idle (PostgreSQL: the pool; SQLite: its one connection on the main thread), and waiting (queries waiting for one).',
    labelNames: ['store', 'state'] as const,
    registers: [registry],
    collect() {
      const use = poolUseOf(db);
      if (!use) return;
      for (const state of ['total', 'idle', 'waiting'] as const) this.set({ store, state }, use[state]);
    },
  });

  const storeUp = new Gauge({ name: 'mailroom_store_up', help: '1 when the store answered this scrape\'s queries, else 0 (and the store-wide gauges are left out).', registers: [registry] });
  const [queueName, oldestName, webhookName, sesOverdueName] = STORE_GAUGES;
  const queueDepth = new Gauge({ name: queueName, help: 'Delivery jobs still to do in the store (due, in flight, scheduled or waiting for a retry); counted up to 100000.', registers: [registry] });
  const oldestDue = new Gauge({ name: oldestName, help: 'Seconds since the longest-waiting due delivery job came due (0: none is due).', registers: [registry] });
  const webhookBacklog = new Gauge({ name: webhookName, help: 'Webhook deliveries still to post in the store (due or waiting for a retry); counted up to 100000.', registers: [registry] });
  const sesOverdue = new Gauge({ name: sesOverdueName, help: 'Recipients handed to SES that have heard no event from it for longer than SES_EVENT_TIMEOUT (still sent; check the SNS subscription); counted up to 100000.', registers: [registry] });
  const backlog = createBacklogRepository(db, offThreadReads, sesEventTimeoutMs);
  const upstreamsUp = createUpstreamGauge(db, registry, serverUpstreams, offThreadReads);

  return {
    registry,
    contentType: registry.contentType,

    /** The text a scrape answers: the store-wide gauges read now, then every metric. */
    async scrape(): Promise<string> {
      try {
        const now = await backlog.read();
        for (const gauge of [queueDepth, oldestDue, webhookBacklog, sesOverdue, upstreamsUp.gauge]) registry.registerMetric(gauge);
        sesOverdue.set(now.sesEventsOverdue);
        queueDepth.set(now.queueDepth);
        oldestDue.set(now.oldestDueAgeSeconds);
        webhookBacklog.set(now.webhookBacklog);
        await upstreamsUp.read();
        storeUp.set(1);
      } catch {
        // A scrape still answers (the process metrics are worth having), without stale store values.
        // Left out, not reset: an unlabelled gauge reset reads 0, an empty queue to anyone alerting on it.
        for (const name of [...STORE_GAUGES, UPSTREAM_GAUGE]) registry.removeSingleMetric(name);
        storeUp.set(0);
      }
      if (!workerMetrics) return registry.metrics();
      // Summed by name and labels (prom-client's cluster aggregation): the worker's counters are 0 here.
      return AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), await workerMetrics()]).metrics();
    },

    /** What serve's delivery thread reports to serve (WORKER_METRICS): its own counts, nothing serve counts too. */
    async workerCounts(): Promise<MetricObjectWithValues<MetricValue<string>>[]> {
      return (await registry.getMetricsAsJSON()).filter((metric) => WORKER_METRICS.has(metric.name));
    },

    httpRequest(method: string, route: string | undefined, statusCode: number, seconds: number): void {
      httpDuration.observe({ method, route: route ?? 'unmatched', status_code: String(statusCode) }, seconds);
    },
    sendsAnswered(way: SendWay, statuses: string[]): void {
      for (const status of statuses) sends.inc({ way, status });
    },
    deliveryOutcomes(provider: string, outcomes: { outcome: string; provider?: string | undefined }[]): void {
      for (const outcome of outcomes) deliveryOutcomes.inc({ provider: outcome.provider ?? provider, outcome: outcome.outcome });
    },
    webhookSettled(state: 'delivered' | 'pending' | 'failed'): void {
      webhookOutcomes.inc({ outcome: state === 'pending' ? 'retrying' : state });
    },
    retentionPruned(rows: Record<string, number>): void {
      for (const [table, n] of Object.entries(rows)) retentionPruned.inc({ table }, n);
    },
    inboundReport({ outcome, results }: InboundReportSeen): void {
      if (results.length === 0) inboundReports.inc({ kind: 'none', outcome });
      for (const { kind } of results) inboundReports.inc({ kind, outcome });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
