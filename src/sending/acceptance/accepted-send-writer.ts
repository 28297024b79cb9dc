import { settleSends, writeAcceptedSends, type AcceptedSendWriter, type PendingSend } from './accepted-sends.js';
import { createBatchQueue } from '../../db/batch-queue.js';
import type { Store } from '../../db/store.js';

/**
 * Batches in flight at once. A batch is a chain of round trips to the database (nine then, seven since
 * insertTogether, six since acceptance-checks-repository.ts, two since db/pipelined-postgres.ts), each one
 * waiting on the last, and the CPUs sat mostly idle meanwhile: a second batch written while the first
 * waits raised bench:send on PostgreSQL by about 17 % (5,700 → 6,700 req/s here); a third gained nothing
 * measurable, before or after insertTogether. Their counter upserts take the same rows in the same order
 * (counter-order), so they wait, never deadlock.
 */
const CONCURRENT_BATCHES = 2;

/**
 * The writer for a store whose database does its work elsewhere (another
 * process, as PostgreSQL does): sends that arrive while a batch is being
 * committed form the next batch, written on this thread, up to
 * CONCURRENT_BATCHES at once. Each caller's promise resolves only after the
 * commit holding its rows. SQLite, whose work would run on this thread, uses
 * threaded-send-writer.ts instead.
 */
export function createAcceptedSendWriter(store: Store): AcceptedSendWriter {
  const enqueue = createBatchQueue<PendingSend>(
    async (batch) => settleSends(batch, await writeAcceptedSends(store, batch.map((p) => p.send))),
    (error, batch) => batch.forEach((pending) => pending.reject(error)),
    { concurrency: CONCURRENT_BATCHES },
  );

  return {
    write(send) {
      return new Promise<{ queued: boolean }>((resolve, reject) => enqueue({ send, resolve, reject }));
    },
    async close() {},
  };
}
