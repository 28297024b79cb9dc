import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { RetentionSettings } from '../lib/config-settings.js';
import { firstIdAt } from '../lib/ids.js';
import type { Repositories, Store } from '../db/store.js';
import { createWakeablePause } from '../lib/wakeable-pause.js';
import type { PrunedRows } from './retention-repository.js';

const DAY_MS = 86_400_000;
const LEASE_NAME = 'retention';

/**
 * Messages one step handles. A step is one transaction: on SQLite it holds
 * the write lock, and runs on the thread that answers HTTP, for its whole
 * length, so sends wait behind it; 25 messages' rows (some 110) are a
 * millisecond or two of it (bench/retention.ts measures what sends see
 * meanwhile: 200 a step, with a 25 ms rest, took their p99 from 30 to 80 ms;
 * 50 with the rest below, to 50 ms).
 */
export const RETENTION_BATCH = 25;
/** Least rest between two steps: the store is the API's in between. */
export const RETENTION_PAUSE_MS = 25;
/**
 * The rest is also at least this many times the step's own length, so the
 * pruner holds the store at most a tenth of the time however slow the steps
 * run on a busy machine; still thousands of rows a second, well above what
 * a day's sending leaves to prune.
 */
const REST_PER_STEP = 9;
/** How often a process offers to prune. Expired rows build up by the day; the first round comes soon after start. */
export const RETENTION_INTERVAL_MS = 10 * 60_000;
const FIRST_ROUND_MS = 10_000;
/** How long a round may go without renewing its lease before another process takes over. */
const LEASE_MS = 60_000;
/** A round renews its lease after a step once this much of it has gone: a write (and on SQLite an fsync) of its own. */
const RENEW_AFTER_MS = LEASE_MS / 3;

export interface RetentionPrunerOptions {
  store: Store;
  settings: RetentionSettings;
  logger: Logger;
  /** Counts what was removed (metrics). */
  onPruned?: (rows: PrunedRows) => void;
  now?: () => number;
  batchSize?: number;
  pauseMs?: number;
}

/** What one round did: nothing when another process held the lease. */
export interface PruneRound {
  leased: boolean;
  rows: PrunedRows;
  steps: number;
}

/** One step's work, null when it found nothing left to do. */
type Step = (repos: Repositories) => Promise<PrunedRows | null>;

/**
 * CONTENT_RETENTION_DAYS and LOG_RETENTION_DAYS, enforced in the background
 * by every process that runs the worker: each offers to prune every ten
 * minutes and the one that takes the store's lease (maintenance_leases)
 * does the round, in steps of bounded size, so no two do the same work.
 * Messages past the log retention go first, whole; then the content of the
 * younger ones past the content retention. Statistics counters are left as
 * they are (they are rows of their own).
 */
export function createRetentionPruner({ store, settings, logger, onPruned, now = Date.now, batchSize = RETENTION_BATCH, pauseMs = RETENTION_PAUSE_MS }: RetentionPrunerOptions) {
  const owner = randomUUID();
  const pause = createWakeablePause();
  let stopping = false;
  let loop: Promise<void> | undefined;

  function stepsAt(at: number): Step[] {
    const steps: Step[] = [];
    if (settings.logDays > 0) {
      const cutoff = at - settings.logDays * DAY_MS;
      steps.push(
        (repos) => repos.retention.deleteMessages(firstIdAt('msg', cutoff), batchSize),
        (repos) => repos.retention.deleteWebhookDeliveries(firstIdAt('whd', cutoff), batchSize),
        (repos) => repos.retention.deleteInboundReports(new Date(cutoff).toISOString(), batchSize),
      );
    }
    if (settings.contentDays > 0) {
      const boundary = firstIdAt('msg', at - settings.contentDays * DAY_MS);
      steps.push((repos) => repos.retention.expireContent(boundary, new Date(at).toISOString(), batchSize));
    }
    return steps;
  }

  const lease = (at: number) => store.retention.takeLease(LEASE_NAME, owner, new Date(at).toISOString(), new Date(at + LEASE_MS).toISOString());

  /** One round: every expired row, step by step, unless another process holds the lease (or the pruner is stopped). */
  async function runOnce(): Promise<PruneRound> {
    const at = now();
    const round: PruneRound = { leased: false, rows: {}, steps: 0 };
    if (!(await lease(at))) return round;
    round.leased = true;
    let renewedAt = at;
    try {
      for (const step of stepsAt(at)) {
        while (!stopping) {
          const started = performance.now();
          const rows = await store.transaction(step);
          round.steps += 1;
          if (rows === null) break;
          for (const [table, n] of Object.entries(rows)) round.rows[table] = (round.rows[table] ?? 0) + n;
          if (Object.keys(rows).length > 0) onPruned?.(rows);
          await pause.pause(Math.max(pauseMs, REST_PER_STEP * (performance.now() - started)));
          const stepEnd = now();
          if (stepEnd - renewedAt >= RENEW_AFTER_MS) {
            renewedAt = stepEnd;
            // Lost (this process stalled past the lease): whoever took it carries on from here.
            if (!(await lease(renewedAt))) return round;
          }
        }
      }
    } finally {
      await store.retention.releaseLease(LEASE_NAME, owner).catch(() => {});
    }
    return round;
  }

  async function run(): Promise<void> {
    let wait = FIRST_ROUND_MS;
    while (!stopping) {
      await pause.pause(wait);
      wait = RETENTION_INTERVAL_MS;
      if (stopping) break;
      try {
        const round = await runOnce();
        const removed = Object.values(round.rows).reduce((sum, n) => sum + n, 0);
        if (removed > 0) logger.info({ rows: round.rows, steps: round.steps }, `Retention: pruned ${removed} rows past CONTENT_RETENTION_DAYS/LOG_RETENTION_DAYS`);
      } catch (err) {
        // The store may be away for a moment; the next round picks up where this one stopped.
        logger.warn({ err }, 'Retention round failed; retrying at the next round');
      }
    }
  }

  return {
    runOnce,
    start(): void {
      if (settings.contentDays === 0 && settings.logDays === 0) return;
      loop ??= run();
    },
    /** Ends the round in progress after its current step. */
    async stop(): Promise<void> {
      stopping = true;
      pause.wake();
      await loop;
    },
  };
}

export type RetentionPruner = ReturnType<typeof createRetentionPruner>;
