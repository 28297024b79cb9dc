import type { Logger } from 'pino';
import type { Config } from './config.js';
import { storeKindOf } from './db/database.js';
import { startWalCheckpointer } from './db/wal-checkpointer.js';
import type { ReturnPathSigner } from './inbound/return-path.js';
import type { DeliveryWorker } from './delivery/delivery-worker.js';
import { createMetrics, startMetricsListener, type Metrics } from './observability/index.js';
import { createStore } from './repositories/index.js';
import { startRetentionPruner } from './retention/index.js';
import { isSupervisedWorker } from './worker-process/supervised-worker.js';
import { createLogger, openMigratedDatabase, openReturnPaths, startDeliveryWorker, startWebhookDispatcher, withSecretKey } from './server.js';

/** `mailroom worker`: the delivery worker alone, until `stop()`, which lets it finish and closes the store. */
export async function startWorker(givenConfig: Config): Promise<{ log: Logger; worker: DeliveryWorker; metrics: Metrics; stop(): Promise<void> }> {
  const sqlite = storeKindOf(givenConfig) === 'sqlite';
  // The worker's writes are at-least-once by nature: no fsync per commit (SqliteOptions.synchronous).
  const db = await openMigratedDatabase(givenConfig, { backgroundCheckpoints: sqlite, synchronous: 'NORMAL' });
  const store = createStore(db);
  const log = createLogger(givenConfig);
  // Claims and outcomes are written on this thread: a checkpoint inside one of them would stall every hand-over.
  let config: Config;
  let returnPaths: ReturnPathSigner;
  try {
    config = await withSecretKey(store, givenConfig, log);
    returnPaths = await openReturnPaths(store, config);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  // serve's worker process leaves the WAL to serve's checkpointer thread: one per store file is enough.
  const checkpointer = sqlite && !isSupervisedWorker() ? startWalCheckpointer(config.dataDir, log) : undefined;
  const metrics = createMetrics({ db, troubleCounts: () => worker.troubleCounts() });
  const worker = startDeliveryWorker(store, config, returnPaths, metrics);
  const webhooks = startWebhookDispatcher(store, config, metrics);
  const retention = startRetentionPruner(store, config, log.child({ component: 'retention' }), metrics);
  let metricsListener: { close(): Promise<void> } | undefined;
  async function stop() {
    await metricsListener?.close();
    await Promise.all([worker.stop(), webhooks.stop(), retention.stop()]);
    await checkpointer?.stop();
    await db.destroy();
  }
  if (config.metrics.port !== 0) {
    metricsListener = await startMetricsListener(config.host, config.metrics.port, metrics, config.metrics.token).catch(async (error: unknown) => {
      await stop();
      throw error;
    });
  }
  return { log, worker, metrics, stop };
}
