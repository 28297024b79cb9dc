import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Metrics } from '../observability/index.js';
import type { Store } from '../db/store.js';
import { createRetentionPruner, type RetentionPruner } from './retention-pruner.js';

export { createRetentionPruner, type PruneRound, type RetentionPruner } from './retention-pruner.js';

/** The retention pruner as `serve` and `worker` run it, beside the delivery worker. */
export function startRetentionPruner(store: Store, config: Pick<Config, 'retention'>, logger: Logger, metrics?: Metrics): RetentionPruner {
  const pruner = createRetentionPruner({ store, settings: config.retention, logger, onPruned: metrics ? (rows) => metrics.retentionPruned(rows) : undefined });
  pruner.start();
  return pruner;
}
export { createRetentionRepository } from './retention-repository.js';
