import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { SqliteOptions } from '../../db/database.js';
import { reviveError, type ClonedError } from '../../db/store-failure.js';
import { startModuleThread } from '../../lib/module-worker.js';
import { attachmentMemoryOf, settleSends, type AcceptedSendWriter, type PendingSend, type SendWriteResult } from './accepted-sends.js';
import { createBatchQueue } from '../../db/batch-queue.js';
import { packSend } from './packed-sends.js';
import type { SendWriterReply, SendWriterRequest, SendWriterThreadData } from './send-writer-messages.js';

const THREAD_ENTRY = new URL('./send-writer-thread.js', import.meta.url);

/**
 * Sends posted to the writer thread at once, at most. An event-loop turn under load reads some twenty-five
 * requests; posted only at its end, the writer thread would sit idle while this thread validated all of
 * them, then this thread while the writer committed. Posted sixteen at a time, the first commit starts
 * while this thread still reads the rest. Commits get smaller (19 sends on average against 25, in 8 s
 * bursts at 50 connections with the worker off) but the threads overlap: 89,000–91,000 sends against
 * 80,000–82,000 in two bursts each, the writer thread committing 77 % of the time against 66 %.
 */
const MAX_SENDS_PER_POST = 16;

/**
 * The writer for the embedded SQLite store. better-sqlite3 works
 * synchronously, so on the HTTP thread every INSERT, commit and fsync of the
 * send path would stall every other request. Here they run on a thread of
 * their own with its own connection (WAL lets the HTTP thread's connection
 * keep reading meanwhile): this thread batches the sends of each event-loop
 * turn into one message (or several: MAX_SENDS_PER_POST), the writer thread merges the messages that arrive
 * while it commits, and each caller's promise resolves only once the commit
 * holding its rows is done.
 *
 * Should the thread die, the sends it held are rejected (their outcome is
 * unknown: the caller answers 500 and the client retries) and the next write
 * starts a new thread.
 */
export function createThreadedSendWriter(dataDir: string, sqliteOptions: SqliteOptions = {}): AcceptedSendWriter {
  let worker: Worker | undefined;
  let nextRequestId = 0;
  const inFlight = new Map<number, PendingSend[]>();
  let drained: (() => void) | undefined;
  let closed = false;

  function settle(id: number, results: SendWriteResult[]): void {
    const batch = inFlight.get(id);
    if (!batch) return;
    inFlight.delete(id);
    if (inFlight.size === 0) worker?.unref();
    settleSends(batch, results.map((r) => (!r.ok && 'error' in r ? { ok: false, error: reviveError(r.error as ClonedError) } : r)));
    if (inFlight.size === 0) drained?.();
  }

  function failAll(error: ClonedError): void {
    for (const [id, batch] of inFlight) settle(id, batch.map((): SendWriteResult => ({ ok: false, error })));
  }

  function thread(): Worker {
    if (worker) return worker;
    const data: SendWriterThreadData = { dataDir, sqliteOptions: { ...sqliteOptions, memoryTempStore: true } };
    const started = startModuleThread(THREAD_ENTRY, data);
    // Only writes in flight keep the process alive; an idle thread must not.
    started.unref();
    // One thread at a time holds every write in flight; once it is replaced, its late events concern nobody.
    const lost = (error: ClonedError) => {
      if (worker !== started) return;
      worker = undefined;
      failAll(error);
    };
    started.on('message', (reply: SendWriterReply) => {
      if (reply.type === 'written') settle(reply.id, reply.results);
      // A store that would not open (a failing disk, say) is still a store failure, answered as one.
      else lost({ ...reply.error, message: `The send writer thread failed: ${reply.error.message}` });
    });
    started.on('error', (error) => lost({ message: `The send writer thread failed: ${error.message}` }));
    started.on('exit', (code) => lost({ message: `The send writer thread exited (code ${code})` }));
    worker = started;
    return started;
  }

  const enqueue = createBatchQueue<PendingSend>(
    async (batch) => {
      const id = nextRequestId++;
      inFlight.set(id, batch);
      const sends = batch.map((p) => p.send);
      const request: SendWriterRequest = { type: 'write', id, sends: sends.map(packSend) };
      const target = thread();
      target.ref();
      // Attachment bytes move to the writer thread rather than being copied: nothing here reads them again.
      target.postMessage(request, attachmentMemoryOf(sends));
    },
    (error, batch) => batch.forEach((pending) => pending.reject(error)),
    { maxBatch: MAX_SENDS_PER_POST },
  );

  return {
    write(send) {
      if (closed) return Promise.reject(new Error('The send writer is closed'));
      return new Promise<{ queued: boolean }>((resolve, reject) => enqueue({ send, resolve, reject }));
    },
    async close() {
      closed = true;
      // Sends queued this turn are posted at its end: let that happen, then wait for their replies.
      await new Promise((resolve) => setImmediate(resolve));
      if (inFlight.size > 0) await new Promise<void>((resolve) => (drained = resolve));
      const stopping = worker;
      if (!stopping) return;
      worker = undefined;
      // Referenced again, so the process waits for the thread to close its connection.
      stopping.ref();
      const exited = once(stopping, 'exit');
      stopping.postMessage({ type: 'close' } satisfies SendWriterRequest);
      await exited;
    },
  };
}
