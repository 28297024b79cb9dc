import { buildApp, type App } from './app.js';
import type { Config } from './config.js';
import { storeKindOf, type Db } from './db/database.js';
import { assertMigrated } from './db/migrator.js';
import { listenFailure } from './lib/listen-failure.js';
import { startWalCheckpointer } from './db/wal-checkpointer.js';
import { createSqliteReader } from './db/sqlite-reader.js';
import { connectRedis } from './db/redis.js';
import { serverUpstreamKey, type DeliveryWorker } from './delivery/index.js';
import { startInboundReceiver, type InboundReceiver, createInboundReportService, type ReturnPathSigner } from './inbound/index.js';
import { startSubmissionServer, type SubmissionServer } from './submission/submission-server.js';
import type { WebhookDispatcher } from './webhooks/index.js';
import { createAcceptedSendWriter, createThreadedSendWriter } from './sending/index.js';
import { createThreadedEngagementWriter } from './tracking/index.js';
import { createStore, createServices, type Services, createLogger, openMigratedDatabase, openSigningKeys, withSecretKey, startDeliveryWorker, startWebhookDispatcher, startDeliveryThread, type DeliveryThread } from './composition/index.js';
import type { Store } from './db/store.js';
import { createMemoryRateLimiter, createRedisRateLimiter } from './lib/rate-limiter.js';
import { createMetrics, NotReadyError, startMetricsListener, type Metrics, type MetricsOptions } from './observability/index.js';
import { closeConnectionsOnceIdle } from './lib/close-idle-connections.js';
import { startRetentionPruner } from './retention/index.js';
import { warnAboutServerSettings } from './db/postgres-settings.js';

/** Everything the API runs on: the migrated store, the send writer and Redis beside it, the services over them. */
export interface Runtime {
  /** The configuration with the installation's secret key (MAILROOM_SECRET_KEY, or the data dir's key file). */
  config: Config;
  db: Db;
  store: Store;
  services: Services;
  /** The delivery worker, when asked for: started, and stopped by close(). */
  worker: DeliveryWorker | undefined;
  /** The inbound SMTP receiver, when asked for and INBOUND_SMTP_PORT is not 0. */
  inbound: InboundReceiver | undefined;
  /** The webhook dispatcher, when asked for. */
  webhooks: WebhookDispatcher | undefined;
  /** The SMTP submission server, when asked for and SUBMISSION_PORT is not 0. */
  submission: SubmissionServer | undefined;
  /** Signs and checks return paths with the installation's key (kept in the store). */
  returnPaths: ReturnPathSigner;
  /** This process's metrics (GET /metrics). */
  metrics: Metrics;
  /** Once no request is in flight: stops the worker and the send writer, then closes the store (its pool) and Redis. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** Run the delivery worker in this process (serve: WORKER_ENABLED; tests: when they test it). */
  worker?: boolean;
  /** Run the inbound SMTP receiver in this process (serve: unless INBOUND_SMTP_PORT=0). */
  inbound?: boolean;
  /** Run the webhook dispatcher in this process (where the delivery worker runs). */
  webhooks?: boolean;
  /** Without a worker here: told of each accepted send (serve: its worker process's supervisor). */
  onSendAccepted?: () => void;
  /** Without a worker here: its process's counts, added to this one's metrics. */
  workerMetrics?: MetricsOptions['workerMetrics'];
  /** Run the SMTP submission server in this process (serve: unless SUBMISSION_PORT=0). */
  submission?: boolean;
}

/** What `serve` runs on, and what the tests call into. */
export async function openRuntime(givenConfig: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const sqlite = storeKindOf(givenConfig) === 'sqlite';
  const db = await openMigratedDatabase(givenConfig, { backgroundCheckpoints: sqlite });
  const store = createStore(db);
  const startLog = createLogger(givenConfig);
  await warnAboutServerSettings(db, startLog);
  const config = await withSecretKey(store, givenConfig, startLog).catch(async (error: unknown) => {
    await db.destroy();
    throw error;
  });
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl).catch(async (error: unknown) => {
        await db.destroy();
        throw error;
      })
    : undefined;
  const keys = await openSigningKeys(store, config).catch(async (error: unknown) => {
    await db.destroy();
    redis?.disconnect();
    throw error;
  });
  const { returnPaths } = keys;
  const checkpointer = sqlite ? startWalCheckpointer(config.dataDir, createLogger(config)) : undefined;
  // SQLite works on the calling thread, so its send writes get a thread of their own (migrated
  // first: that thread opens the same file and expects the schema); PostgreSQL works in its own
  // processes, and the batching writer on this thread suffices.
  const sendWriter = sqlite ? createThreadedSendWriter(config.dataDir, { backgroundCheckpoints: true }) : createAcceptedSendWriter(store);
  // Opens and clicks likewise: their batches' commits must not hold the HTTP thread.
  const engagementWriter = sqlite ? createThreadedEngagementWriter(config.dataDir, { backgroundCheckpoints: true }) : undefined;
  // A scrape's store-wide counts can take tens of milliseconds on SQLite: read on a thread of their own.
  const scrapeReads = sqlite ? createSqliteReader(config.dataDir, (error) => startLog.warn({ err: error.message }, 'SQLite read thread failed; started again at the next scrape')) : undefined;
  // Provider trouble is counted by the worker, which starts after the metrics: read through it at scrape time.
  const metrics = createMetrics({ db, troubleCounts: () => worker?.troubleCounts() ?? [], workerMetrics: options.workerMetrics, offThreadReads: scrapeReads, sesEventTimeoutMs: config.ses.eventTimeoutMs, serverUpstreams: config.providers.map(serverUpstreamKey) });
  const worker = options.worker ? startDeliveryWorker(store, config, keys, metrics) : undefined;
  const webhooks = options.webhooks ? startWebhookDispatcher(store, config, metrics) : undefined;
  const retention = options.worker ? startRetentionPruner(store, config, createLogger(config).child({ component: 'retention' }), metrics) : undefined;
  let inbound: InboundReceiver | undefined;
  let submission: SubmissionServer | undefined;
  let services: Services | undefined;
  // Also what a failed start of a listener below undoes: whatever has started so far stops, in the same order.
  async function closeRuntime() {
    await Promise.all([inbound?.close(), submission?.close()]);
    // Both wait for work in flight (each within its own bound): side by side, not one after the other.
    await Promise.all([worker?.stop(), webhooks?.stop(), retention?.stop()]);
    await sendWriter.close();
    // Opens and clicks answered already are written before the store closes.
    await services?.tracking.recorder.flush();
    await engagementWriter?.close();
    await scrapeReads?.close();
    await checkpointer?.stop();
    await db.destroy();
    redis?.disconnect();
  }
  const failStart = async (error: unknown): Promise<never> => {
    await closeRuntime();
    throw error;
  };
  inbound =
    options.inbound && config.inbound.port !== 0
      ? await startInboundReceiver(
          config.inbound,
          createInboundReportService(store, returnPaths, metrics).recordReceived,
          createLogger(config).child({ component: 'inbound' }),
          returnPaths,
        ).catch(failStart)
      : undefined;
  services = createServices(store, config, {
    sendWriter,
    ...(engagementWriter ? { engagementWriter } : {}),
    // A send accepted here is looked at at once, not at the next poll.
    onSendAccepted: worker ? () => worker.wake() : options.onSendAccepted,
    rateLimiter: redis ? createRedisRateLimiter(redis, config.redisKeyPrefix) : createMemoryRateLimiter(),
    healthChecks: redis ? { redis: () => redis.ping() } : {},
    readinessChecks: {
      migrations: () => assertMigrated(db),
      // What the worker (on its own thread, or in other processes) last heard from SES about Mailroom's credentials.
      ...(config.providers.includes('ses') ? { provider: () => providerRefusal(store, 'ses') } : {}),
    },
    metrics,
  });
  submission =
    options.submission && config.submission.port !== 0
      ? await startSubmissionServer(
          config.submission,
          { authenticate: services.apiKeys.authenticate, rateLimiter: services.rateLimiter, limits: config.rateLimits, accept: (workspaceId, input, key) => services.send.accept(workspaceId, input, key, 'smtp'), memory: services.sendMemory },
          createLogger(config).child({ component: 'submission' }),
        ).catch(failStart)
      : undefined;
  return {
    config,
    db,
    store,
    services,
    worker,
    inbound,
    webhooks,
    submission,
    returnPaths,
    metrics,
    close: closeRuntime,
  };
}

/** Readiness fails, saying why, while the provider's last word on Mailroom's credentials was a refusal. */
async function providerRefusal(store: Store, provider: string): Promise<void> {
  const refusal = await store.providerState.refusalOf(provider);
  if (refusal) throw new NotReadyError(`${refusal.reason} (since ${refusal.since}; cleared by the next send SES accepts)`);
}

/**
 * `mailroom serve`: the API on HOST:PORT until `close()`, which drains in-flight requests, then closes the
 * store. The delivery worker (WORKER_ENABLED) runs on a thread of its own, started once this one listens.
 * `setupLink` is told the first-run setup link besides the log (the command line, at a terminal).
 */
export async function startServer(config: Config, options: { setupLink?: (link: string) => void } = {}): Promise<App> {
  let deliveryThread: DeliveryThread | undefined;
  const runtime = await openRuntime(config, {
    inbound: true,
    submission: true,
    onSendAccepted: () => deliveryThread?.wake(),
    workerMetrics: async () => (deliveryThread ? deliveryThread.metrics() : []),
  });
  try {
    const app = await buildApp({ config: runtime.config, services: runtime.services });
    // The delivery thread starts its stop with serve's (its deliveries in flight need the time), not after the HTTP drain.
    app.addHook('preClose', async () => void deliveryThread?.stop());
    const letGoOfConnections = closeConnectionsOnceIdle(app.server);
    app.addHook('preClose', async () => letGoOfConnections());
    app.addHook('onClose', () => Promise.all([deliveryThread?.stop(), runtime.close()]));
    await listenForMetrics(app, config, runtime.metrics);
    // Notifications answered but not applied when a process stopped, and subscriptions still to confirm.
    if (runtime.config.ses.snsTopicArns.length > 0) {
      runtime.services.sesEvents.start();
      app.addHook('preClose', () => runtime.services.sesEvents.stop());
    }
    // The first run: nobody can sign in yet, so the log holds the way in (people/setup-service.ts). Issued
    // before listening: nothing may be awaited between "listening" and the caller's signal handlers, or a
    // SIGTERM in that gap (a slow store) would end the process without a clean stop.
    const setupToken = await runtime.services.setup.issueIfNoUsers();
    await app.listen({ host: config.host, port: config.port }).catch((error: unknown) => {
      throw listenFailure(error, { portVariable: 'PORT', hostVariable: 'HOST', host: config.host, port: config.port });
    });
    if (setupToken) {
      const link = `${config.publicOrigin ?? app.listeningOrigin}/setup?token=${setupToken}`;
      app.log.info(`No one can sign in yet: open ${link} within an hour to create the first admin account and workspace`);
      options.setupLink?.(link);
    }
    // After the store is migrated and the secret key made, which the delivery thread then finds done.
    if (config.worker.enabled) deliveryThread = startDeliveryThread({ config: runtime.config, log: createLogger(config) });
    return app;
  } catch (error) {
    await runtime.close();
    throw error;
  }
}

/** METRICS_PORT: GET /metrics on a listener of its own, closed with the app. */
async function listenForMetrics(app: App, config: Config, metrics: Metrics): Promise<void> {
  if (config.metrics.port === 0) return;
  const listener = await startMetricsListener(config.host, config.metrics.port, metrics, config.metrics.token);
  app.addHook('onClose', () => listener.close());
}
