/**
 * Entry of the SQLite send writer thread (see threaded-send-writer.ts): its
 * own connection to the store, and the same repositories and batch write as
 * any other writer.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { Db } from '../../db/database.js';
import { openSqlite, type SqliteOptions } from '../../db/database.js';
import { cloneError } from '../../db/store-failure.js';
import { reviveAttachments, writeAcceptedSends, type SendWriteResult } from './accepted-sends.js';
import { unpackSend } from './packed-sends.js';
import type { SendWriterReply, SendWriterRequest, SendWriterThreadData } from './send-writer-messages.js';
import { createBatchQueue } from '../../db/batch-queue.js';
import { createStore } from '../../composition/index.js';

/** Errors cross threads by structured clone: keep them to what survives it, a store failure's kind included. */
function cloneable(result: SendWriteResult): SendWriteResult {
  if (result.ok || 'refused' in result) return result;
  return { ok: false, error: cloneError(result.error) };
}

function run(port: MessagePort, { dataDir, sqliteOptions }: SendWriterThreadData): void {
  let db: Db;
  try {
    db = openSqlite(dataDir, sqliteOptions);
  } catch (error) {
    // Reported as a message rather than thrown: the parent fails the writes it holds with this reason.
    port.postMessage({ type: 'fatal', error: cloneError(error) } satisfies SendWriterReply);
    port.close();
    return;
  }
  const store = createStore(db);
  type WriteRequest = Extract<SendWriterRequest, { type: 'write' }>;

  // Requests that arrive while a batch commits are written together in the next one.
  const enqueue = createBatchQueue<WriteRequest>(
    async (requests) => {
      const results = await writeAcceptedSends(store, reviveAttachments(requests.flatMap((r) => r.sends.map(unpackSend))));
      let offset = 0;
      for (const { id, sends } of requests) {
        port.postMessage({ type: 'written', id, results: results.slice(offset, offset + sends.length).map(cloneable) } satisfies SendWriterReply);
        offset += sends.length;
      }
    },
    (error, requests) => {
      for (const { id, sends } of requests) port.postMessage({ type: 'written', id, results: sends.map(() => cloneable({ ok: false, error })) } satisfies SendWriterReply);
    },
  );

  port.on('message', (request: SendWriterRequest) => {
    if (request.type === 'write') return enqueue(request);
    // The parent sends `close` once nothing is in flight: release the connection, then let the thread end.
    port.close();
    void db.destroy();
  });
}

if (parentPort) run(parentPort, workerData as SendWriterThreadData);
