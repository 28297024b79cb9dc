import { writeAcceptedSends, type AcceptedSend, type AcceptedSendWriter } from './accepted-sends.js';
import { createBatchQueue } from './batch-queue.js';
import type { Store } from './index.js';

interface Pending {
  send: AcceptedSend;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * The writer for a store whose database does its work elsewhere (another
 * process, as PostgreSQL does): sends that arrive while a batch is being
 * committed form the next batch, written on this thread. Each caller's
 * promise resolves only after the commit holding its rows. SQLite, whose work
 * would run on this thread, uses threaded-send-writer.ts instead.
 */
export function createAcceptedSendWriter(store: Store): AcceptedSendWriter {
  const enqueue = createBatchQueue<Pending>(
    async (batch) => {
      const errors = await writeAcceptedSends(
        store,
        batch.map((p) => p.send),
      );
      batch.forEach((pending, i) => (errors?.[i] === undefined ? pending.resolve() : pending.reject(errors[i])));
    },
    (error, batch) => batch.forEach((pending) => pending.reject(error)),
  );

  return {
    write(send) {
      return new Promise<void>((resolve, reject) => enqueue({ send, resolve, reject }));
    },
    async close() {},
  };
}
