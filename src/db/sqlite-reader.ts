import type { Worker } from 'node:worker_threads';
import type { CompiledQuery } from 'kysely';
import { startModuleThread } from '../lib/module-worker.js';
import type { SqliteReadData, SqliteReadReply, SqliteReadRequest } from './sqlite-read-thread.js';

const THREAD_ENTRY = new URL('./sqlite-read-thread.js', import.meta.url);

/** Runs reads on a connection other than the calling thread's. */
export interface OffThreadReads {
  /** Each query's first row (undefined where it has none), in order, read in one go. */
  firstRows(queries: CompiledQuery[]): Promise<(Record<string, unknown> | undefined)[]>;
  /** Ends the thread, once no read is wanted any more; a read asked after that starts it again. */
  close(): Promise<void>;
}

/**
 * Reads of the embedded store on a thread of its own, for the few that can
 * take tens of milliseconds and must not hold up the thread answering HTTP:
 * better-sqlite3 is synchronous, so a read there stops every request until
 * it ends (the store-wide gauges count up to 100,000 index entries at each
 * scrape: ~30 ms at a deep queue). The thread starts at the first read, and
 * again after it died; whoever asked meanwhile is answered with an error.
 */
export function createSqliteReader(dataDir: string, onThreadError: (error: Error) => void = () => undefined): OffThreadReads {
  let thread: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve(rows: (Record<string, unknown> | undefined)[]): void; reject(error: Error): void }>();

  function started(): Worker {
    if (thread) return thread;
    const started = startModuleThread(THREAD_ENTRY, { dataDir } satisfies SqliteReadData);
    started.on('message', (reply: SqliteReadReply) => {
      const waiting = pending.get(reply.id);
      pending.delete(reply.id);
      if (pending.size === 0) started.unref();
      if ('error' in reply) waiting?.reject(new Error(reply.error));
      else waiting?.resolve(reply.rows);
    });
    // An 'error' (the thread threw, or its module would not load) is followed by 'exit': the reads in flight fail there.
    started.on('error', onThreadError);
    started.once('exit', () => {
      if (thread === started) thread = undefined;
      for (const waiting of pending.values()) waiting.reject(new Error('the read thread stopped'));
      pending.clear();
    });
    // Idle, it must not keep the process alive (after the listeners: adding one refs the port again); a read
    // in flight does, as its answer is awaited.
    started.unref();
    return (thread = started);
  }

  return {
    firstRows(queries) {
      const id = nextId++;
      const answer = new Promise<(Record<string, unknown> | undefined)[]>((resolve, reject) => pending.set(id, { resolve, reject }));
      const running = started();
      running.ref();
      running.postMessage({ type: 'read', id, queries: queries.map(({ sql, parameters }) => ({ sql, parameters })) } satisfies SqliteReadRequest);
      return answer;
    },
    async close() {
      const running = thread;
      if (!running) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      // Held until it has closed its connection, not cut short by a process that would otherwise end.
      running.ref();
      running.postMessage({ type: 'close' } satisfies SqliteReadRequest);
      await exited;
    },
  };
}
