import type { Logger } from 'pino';
import { startModuleThread } from '../lib/module-worker.js';
import type { WalCheckpointerData, WalCheckpointerReply, WalCheckpointerRequest } from './wal-checkpointer-thread.js';

const THREAD_ENTRY = new URL('./wal-checkpointer-thread.js', import.meta.url);

/** How often the checkpointer copies: what it leaves to the writers' own checkpoint is at most this much writing. */
export const WAL_CHECKPOINT_INTERVAL_MS = 100;

export interface WalCheckpointer {
  stop(): Promise<void>;
}

/**
 * Copies the WAL back into the database file on a thread of its own, while
 * the writers go on. SQLite otherwise checkpoints inside the commit that
 * crosses `wal_autocheckpoint`: that commit, and every request waiting on it,
 * waits for tens of MB to be copied and synced (the send path's p99 fell from
 * ~22 to ~15 ms with this thread). The writers keep a checkpoint of their own
 * (SQLITE_WRITER_CHECKPOINT_PAGES in database.ts), which finds little left to
 * copy and starts the WAL over; should this thread stop, it is also what
 * keeps the WAL bounded.
 */
export function startWalCheckpointer(dataDir: string, logger: Logger, intervalMs = WAL_CHECKPOINT_INTERVAL_MS): WalCheckpointer {
  const data: WalCheckpointerData = { dataDir, intervalMs };
  const thread = startModuleThread(THREAD_ENTRY, data);
  let running = true;
  // A plain listener rather than events.once, which would reject on an 'error' and leave stop() (and the close after it) undone.
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  thread.on('message', (reply: WalCheckpointerReply) => {
    if (reply.type === 'unavailable') logger.warn({ err: reply.message }, 'WAL checkpointer could not open the store; the writers checkpoint by themselves');
    else logger.warn({ err: reply.message }, 'WAL checkpoint failed; the writers still checkpoint by themselves');
  });
  thread.on('error', (error) => logger.warn({ err: error.message }, 'WAL checkpointer thread failed'));
  void exited.then(() => (running = false));
  // It only ever helps: it must not keep the process alive. After the listeners: adding a
  // 'message' listener refs the thread's port again.
  thread.unref();
  return {
    async stop() {
      if (!running) return;
      thread.ref();
      thread.postMessage({ type: 'close' } satisfies WalCheckpointerRequest);
      await exited;
    },
  };
}
