import { settleSends, writeAcceptedSends, type AcceptedSendWriter, type PendingSend } from './accepted-sends.js';
import { createBatchQueue } from '../repositories/batch-queue.js';
import type { Store } from '../repositories/index.js';

/**
 * The writer for a store whose database does its work elsewhere (another
 * process, as PostgreSQL does): sends that arrive while a batch is being
 * committed form the next batch, written on this thread. Each caller's
 * promise resolves only after the commit holding its rows. SQLite, whose work
 * would run on this thread, uses threaded-send-writer.ts instead.
 */
export function createAcceptedSendWriter(store: Store): AcceptedSendWriter {
  const enqueue = createBatchQueue<PendingSend>(
    async (batch) => settleSends(batch, await writeAcceptedSends(store, batch.map((p) => p.send))),
    (error, batch) => batch.forEach((pending) => pending.reject(error)),
  );

  return {
    write(send) {
      return new Promise<{ queued: boolean }>((resolve, reject) => enqueue({ send, resolve, reject }));
    },
    async close() {},
  };
}
