import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { SqliteOptions } from '../db/database.js';
import { startModuleThread } from '../lib/module-worker.js';
import type { EngagementHit } from './engagement-recorder.js';
import type { EngagementWriterReply, EngagementWriterRequest, EngagementWriterThreadData } from './engagement-writer-messages.js';

const THREAD_ENTRY = new URL('./engagement-writer-thread.js', import.meta.url);

/** Writes a batch of opens and clicks; resolves once it is committed. */
export interface EngagementWriter {
  write(hits: EngagementHit[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The opens and clicks of the embedded SQLite store, written on a thread of
 * their own, as sends are (sending/acceptance/threaded-send-writer.ts):
 * better-sqlite3 works synchronously, and each batch's INSERTs and commit
 * (its fsync above all) on the HTTP thread held every tracked address, and
 * every API request, behind them. Should the thread die, the batches it held
 * fail (their opens and clicks are lost, and logged) and the next write starts
 * a new one.
 */
export function createThreadedEngagementWriter(dataDir: string, sqliteOptions: SqliteOptions = {}): EngagementWriter {
  let worker: Worker | undefined;
  let nextId = 0;
  const inFlight = new Map<number, { resolve(): void; reject(error: Error): void }>();

  function settle(id: number, error?: Error): void {
    const waiter = inFlight.get(id);
    if (!waiter) return;
    inFlight.delete(id);
    if (inFlight.size === 0) worker?.unref();
    if (error) waiter.reject(error);
    else waiter.resolve();
  }

  function thread(): Worker {
    if (worker) return worker;
    const data: EngagementWriterThreadData = { dataDir, sqliteOptions: { ...sqliteOptions, memoryTempStore: true } };
    const started = startModuleThread(THREAD_ENTRY, data);
    started.unref();
    const lost = (message: string) => {
      if (worker !== started) return;
      worker = undefined;
      for (const id of [...inFlight.keys()]) settle(id, new Error(message));
    };
    started.on('message', (reply: EngagementWriterReply) => settle(reply.id, reply.type === 'failed' ? new Error(reply.message) : undefined));
    started.on('error', (error) => lost(`The engagement writer thread failed: ${error.message}`));
    started.on('exit', (code) => lost(`The engagement writer thread exited (code ${code})`));
    worker = started;
    return started;
  }

  return {
    write(hits) {
      return new Promise<void>((resolve, reject) => {
        const id = nextId++;
        inFlight.set(id, { resolve, reject });
        const target = thread();
        target.ref();
        target.postMessage({ type: 'write', id, hits } satisfies EngagementWriterRequest);
      });
    },
    async close() {
      const stopping = worker;
      if (!stopping) return;
      worker = undefined;
      stopping.ref();
      const exited = once(stopping, 'exit');
      stopping.postMessage({ type: 'close' } satisfies EngagementWriterRequest);
      await exited;
    },
  };
}
