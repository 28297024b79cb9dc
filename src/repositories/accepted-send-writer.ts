import type { MessagesTable } from '../db/schema.js';
import { createBatchQueue } from './batch-queue.js';
import type { Store } from './index.js';
import type { LogEntryRow } from './logs-repository.js';
import type { NewDeliveryJob } from './messages-repository.js';

/** Everything one accepted send writes: the message, its log entries and, if anyone is to receive it, its outbox row. */
export interface AcceptedSend {
  message: MessagesTable;
  entries: LogEntryRow[];
  job: NewDeliveryJob | null;
}

interface Pending {
  send: AcceptedSend;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Writes accepted sends durably, batching the ones that arrive while a batch is
 * being committed: one multi-row INSERT per table and one commit for the batch,
 * instead of a handful of statements and a commit per send. Each caller's
 * promise resolves only after the commit holding its rows. A batch that fails
 * is retried send by send, so one bad send cannot fail its neighbours.
 */
export function createAcceptedSendWriter(store: Store) {
  const writeAll = (sends: AcceptedSend[]) =>
    store.transaction(async (repos) => {
      await repos.messages.insertMany(sends.map((s) => s.message));
      await repos.logs.insertMany(sends.flatMap((s) => s.entries));
      await repos.messages.enqueueDeliveries(sends.flatMap((s) => (s.job ? [s.job] : [])));
    });

  async function writeBatch(batch: Pending[]): Promise<void> {
    try {
      await writeAll(batch.map((p) => p.send));
      batch.forEach((p) => p.resolve());
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      for (const pending of batch) {
        await writeAll([pending.send]).then(pending.resolve, pending.reject);
      }
    }
  }

  const enqueue = createBatchQueue(writeBatch, (error, batch) => batch.forEach((pending) => pending.reject(error)));

  return {
    write(send: AcceptedSend): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        enqueue({ send, resolve, reject });
      });
    },
  };
}

export type AcceptedSendWriter = ReturnType<typeof createAcceptedSendWriter>;
