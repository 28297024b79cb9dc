/**
 * Entry of the SQLite engagement writer thread (see threaded-engagement-writer.ts): its own connection to the
 * store, and the same batch write as any other process (engagement-recorder.ts).
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openSqlite } from '../db/database.js';
import { createStore } from '../composition/index.js';
import { writeHits } from './engagement-recorder.js';
import type { EngagementWriterReply, EngagementWriterRequest, EngagementWriterThreadData } from './engagement-writer-messages.js';

function run(port: MessagePort, { dataDir, sqliteOptions }: EngagementWriterThreadData): void {
  const db = openSqlite(dataDir, sqliteOptions);
  const store = createStore(db);
  port.on('message', (request: EngagementWriterRequest) => {
    if (request.type === 'close') {
      port.close();
      void db.destroy();
      return;
    }
    writeHits(store, request.hits).then(
      () => port.postMessage({ type: 'written', id: request.id } satisfies EngagementWriterReply),
      (error: unknown) => port.postMessage({ type: 'failed', id: request.id, message: (error as Error).message } satisfies EngagementWriterReply),
    );
  });
}

if (parentPort) run(parentPort, workerData as EngagementWriterThreadData);
