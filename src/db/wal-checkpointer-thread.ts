/**
 * Entry of the WAL checkpointer thread (see wal-checkpointer.ts): its own
 * connection to the store, used for nothing but checkpoints.
 */
import SQLite from 'better-sqlite3';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { sqliteFileOf } from './sqlite-file.js';

export interface WalCheckpointerData {
  dataDir: string;
  intervalMs: number;
}
export type WalCheckpointerRequest = { type: 'close' };
export type WalCheckpointerReply =
  /** The store would not open: the thread ends after this. */
  | { type: 'unavailable'; message: string }
  /** A checkpoint failed; reported once until one succeeds or the error changes. */
  | { type: 'failed'; message: string };

/**
 * A passive checkpoint copies the frames committed before it started, without
 * holding up writers; commits made meanwhile stay in the WAL. Going again
 * copies only those, so a few rounds catch up. Bounded, so a writer that
 * outruns the copy cannot keep this thread busy: the next tick goes on.
 */
const MAX_ROUNDS_PER_TICK = 8;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function run(port: MessagePort, { dataDir, intervalMs }: WalCheckpointerData): void {
  let sqlite: SQLite.Database;
  try {
    sqlite = new SQLite(sqliteFileOf(dataDir));
    // FULL: the checkpoint syncs the WAL before copying and the file after, as the writers' own would.
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('busy_timeout = 5000');
  } catch (error) {
    port.postMessage({ type: 'unavailable', message: messageOf(error) } satisfies WalCheckpointerReply);
    port.close();
    return;
  }

  // Ten ticks a second: a lasting failure (a full disk) is reported once, not ten times a second.
  let reported: string | undefined;
  const tick = () => {
    try {
      for (let round = 0; round < MAX_ROUNDS_PER_TICK; round++) {
        const [result] = sqlite.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
        reported = undefined;
        // busy: another checkpoint holds the lock (a writer's own, another process's); this one waits for the next tick.
        if (!result || result.busy !== 0 || result.checkpointed >= result.log) return;
      }
    } catch (error) {
      // Reported, not fatal: the writers' own checkpoints still bound the WAL.
      const message = messageOf(error);
      if (message !== reported) port.postMessage({ type: 'failed', message } satisfies WalCheckpointerReply);
      reported = message;
    }
  };
  const timer = setInterval(tick, intervalMs);

  port.on('message', (request: WalCheckpointerRequest) => {
    if (request.type !== 'close') return;
    clearInterval(timer);
    sqlite.close();
    port.close();
  });
}

if (parentPort) run(parentPort, workerData as WalCheckpointerData);
