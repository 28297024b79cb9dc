import type { MessagesTable } from '../db/schema.js';
import { publishEvents } from '../events/event-path.js';
import type { MessageEvent } from '../events/message-event.js';
import type { Store } from './index.js';
import type { LogEntryRow } from './logs-repository.js';
import type { NewDeliveryJob } from './messages-repository.js';

/**
 * Everything one accepted send writes: the message, its log entries, if anyone
 * is to receive it its outbox row, and the events of recipients settled at
 * once (suppressed, or failed for an unverified sender domain).
 */
export interface AcceptedSend {
  message: MessagesTable;
  entries: LogEntryRow[];
  job: NewDeliveryJob | null;
  events: MessageEvent[];
}

/** Writes accepted sends durably; `write` resolves only once the send's rows are committed. */
export interface AcceptedSendWriter {
  write(send: AcceptedSend): Promise<void>;
  /** Call once no write is pending (the HTTP server has drained): releases what the writer holds. */
  close(): Promise<void>;
}

/** A send waiting for its batch's commit, with its caller's promise to settle. */
export interface PendingSend {
  send: AcceptedSend;
  resolve(): void;
  reject(error: unknown): void;
}

/** Settles each caller of a batch from writeAcceptedSends' answer: resolved if written, rejected with its own error if not. */
export function settleSends(batch: PendingSend[], errors: unknown[] | null): void {
  batch.forEach((pending, i) => (errors?.[i] === undefined ? pending.resolve() : pending.reject(errors[i])));
}

/**
 * Writes a batch of sends in one transaction: one multi-row INSERT per table
 * and one commit for the batch. If that fails, each send is written alone, so
 * one bad send cannot fail its neighbours. Returns null when every send was
 * written, else the error of each send (undefined for those written).
 */
export async function writeAcceptedSends(store: Store, sends: AcceptedSend[]): Promise<unknown[] | null> {
  const writeAll = (some: AcceptedSend[]) =>
    store.transaction(async (repos) => {
      await repos.messages.insertMany(some.map((s) => s.message));
      await repos.logs.insertMany(some.flatMap((s) => s.entries));
      await repos.messages.enqueueDeliveries(some.flatMap((s) => (s.job ? [s.job] : [])));
      await publishEvents(repos, some.flatMap((s) => s.events));
    });
  try {
    await writeAll(sends);
    return null;
  } catch (error) {
    if (sends.length === 1) return [error ?? new Error('write failed')];
    const errors: unknown[] = [];
    for (const send of sends) errors.push(await writeAll([send]).then(() => undefined, (e: unknown) => e ?? new Error('write failed')));
    return errors;
  }
}
