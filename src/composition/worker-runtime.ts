import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { storeKindOf, type SqliteOptions } from '../db/database.js';
import { startWalCheckpointer } from '../db/wal-checkpointer.js';
import { createDeliveryWorker, type DeliveryWorker, createUpstreamRouter, createThreadedMessageBuilder, serverUpstreamKey } from '../delivery/index.js';
import { tellUpstreamChanges } from './upstream-changes.js';
import { createMetrics, type Metrics, startMetricsListener } from '../observability/index.js';
import { createStore } from './store.js';
import type { Store } from '../db/store.js';
import { startRetentionPruner } from '../retention/index.js';
import { workGraceMs } from '../lib/settle-within.js';
import { warnAboutServerSettings } from '../db/postgres-settings.js';
import { createLogger, openMigratedDatabase, openSigningKeys, withSecretKey, type SigningKeys } from './store-runtime.js';
import { createWebhookDispatcher, type WebhookDispatcher, endpointPreparer } from '../webhooks/index.js';

/**
 * The delivery worker as `serve` and `worker` run it: through the configured
 * providers and the workspaces' upstreams, building messages on a thread of
 * their own. Stopping it closes every upstream and the builder thread too.
 */
export function startDeliveryWorker(store: Store, config: Config, { returnPaths, trackingKey }: SigningKeys, metrics?: Metrics): DeliveryWorker {
  const logger = createLogger(config).child({ component: 'worker' });
  const router = createUpstreamRouter(config, store, logger);
  const build = createThreadedMessageBuilder();
  const worker = createDeliveryWorker({ store, router, onUpstreamChange: tellUpstreamChanges(store, logger, config.upstreamDownMs), config, build, returnPaths, trackingKey, metrics, logger });
  worker.start();
  return {
    ...worker,
    async stop() {
      await worker.stop();
      await router.close();
      await build.close();
    },
  };
}

/** How often an idle dispatcher looks for due webhook deliveries, at most: events should reach receivers within a fraction of a second. */
export const WEBHOOK_POLL_MS = 250;

/** The webhook dispatcher as `serve` and `worker` run it. */
export function startWebhookDispatcher(store: Store, config: Config, metrics?: Metrics): WebhookDispatcher {
  const dispatcher = createWebhookDispatcher({
    store,
    metrics,
    retryBaseMs: config.webhooks.retryBaseMs,
    pollMs: Math.min(config.worker.pollMs, WEBHOOK_POLL_MS),
    prepare: endpointPreparer(config),
    logger: createLogger(config).child({ component: 'webhooks' }),
    stopGraceMs: workGraceMs(config.shutdownGraceMs),
  });
  dispatcher.start();
  return dispatcher;
}

/**
 * How the worker opens its store. Its writes are at least once by nature: no fsync per commit
 * (SqliteOptions.synchronous; on PostgreSQL synchronous_commit off), and they give way to the send
 * writer's for the write lock (SqliteOptions.background). Claims and outcomes are written on the worker's
 * thread: a checkpoint inside one of them would stall every hand-over, so a checkpointer does it.
 */
export function workerStoreOptions(config: Pick<Config, 'databaseUrl'>): SqliteOptions {
  return { backgroundCheckpoints: storeKindOf(config) === 'sqlite', synchronous: 'NORMAL', background: true };
}

export interface RunningWorker {
  log: Logger;
  worker: DeliveryWorker;
  metrics: Metrics;
  /** Lets deliveries and webhook posts in flight finish (or gives them back), then closes the store. */
  stop(): Promise<void>;
}

export interface WorkerRuntimeOptions {
  /**
   * Inside `serve` (its delivery thread): serve has its own WAL checkpointer on the one store file and
   * its own METRICS_PORT listener, which answers this worker's counts too.
   */
  insideServe?: boolean;
}

/**
 * The delivery worker, the webhook dispatcher and the retention pruner over a
 * store connection of their own: `mailroom worker`, and `serve`'s delivery
 * thread (composition/delivery-thread.ts). Runs until `stop()`.
 */
export async function startWorker(givenConfig: Config, options: WorkerRuntimeOptions = {}): Promise<RunningWorker> {
  const sqlite = storeKindOf(givenConfig) === 'sqlite';
  const db = await openMigratedDatabase(givenConfig, workerStoreOptions(givenConfig));
  const store = createStore(db);
  const log = createLogger(givenConfig);
  let config: Config;
  let keys: SigningKeys;
  // Inside serve, serve has said it already.
  if (!options.insideServe) await warnAboutServerSettings(db, log);
  try {
    config = await withSecretKey(store, givenConfig, log);
    keys = await openSigningKeys(store, config);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const checkpointer = sqlite && !options.insideServe ? startWalCheckpointer(config.dataDir, log) : undefined;
  const metrics = createMetrics({ db, troubleCounts: () => worker.troubleCounts(), processMetrics: !options.insideServe, sesEventTimeoutMs: config.ses.eventTimeoutMs, serverUpstreams: config.providers.map(serverUpstreamKey) });
  const worker = startDeliveryWorker(store, config, keys, metrics);
  const webhooks = startWebhookDispatcher(store, config, metrics);
  const retention = startRetentionPruner(store, config, log.child({ component: 'retention' }), metrics);
  let metricsListener: { close(): Promise<void> } | undefined;
  async function stop() {
    await metricsListener?.close();
    await Promise.all([worker.stop(), webhooks.stop(), retention.stop()]);
    await checkpointer?.stop();
    await db.destroy();
  }
  if (config.metrics.port !== 0 && !options.insideServe) {
    metricsListener = await startMetricsListener(config.host, config.metrics.port, metrics, config.metrics.token).catch(async (error: unknown) => {
      await stop();
      throw error;
    });
  }
  return { log, worker, metrics, stop };
}
