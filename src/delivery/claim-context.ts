import type { Config } from '../config.js';
import type { MessagesTable } from '../db/schema.js';
import type { DeliveryJob } from './delivery-jobs-repository.js';
import type { Store } from '../db/store.js';
import type { LogEntryRow } from '../logs/index.js';
import type { AttachmentMeta } from '../sending/index.js';
import { domainOf } from '../lib/email-address.js';
import { suppressedAmong } from '../suppressions/index.js';
import { checkSenderDomain, type SenderDomainCheck } from '../domains/index.js';

/** What attempting one job needs to read, read for a whole claim at once. */
export interface JobContext {
  /** Undefined when the message is gone (deleted with its workspace). */
  message: MessagesTable | undefined;
  /** The message's `send` entries, in request order. */
  entries: LogEntryRow[];
  /** Of its recipients, those on the workspace's suppression list now (lower-cased address → reason). */
  suppressed: Map<string, string>;
  /** Whether its sender domain may send now. */
  sender: SenderDomainCheck | undefined;
  /** Its attachments, without their bytes (read just before the build, see attachment-loader.ts). */
  attachments: AttachmentMeta[];
}

/**
 * Reads, for every job of a claim, the message, its entries, the suppression
 * list's verdict on its recipients and its sender domain's: a handful of
 * queries per claim (one per table, one per workspace or sender domain
 * involved) instead of four per message, which on PostgreSQL are round trips
 * the worker would wait on.
 */
export async function loadClaimContext(store: Store, config: Pick<Config, 'provider'>, jobs: DeliveryJob[]): Promise<Map<string, JobContext>> {
  const messageIds = jobs.map((j) => j.message_id);
  const messages = new Map((await store.messages.findMany(messageIds)).map((m) => [m.id, m]));
  const entriesOf = new Map<string, LogEntryRow[]>();
  for (const entry of await store.logs.listSendEntries(messageIds)) {
    const list = entriesOf.get(entry.message_id) ?? [];
    list.push(entry);
    entriesOf.set(entry.message_id, list);
  }

  const attachmentsOf = new Map<string, AttachmentMeta[]>();
  for (const meta of await store.attachments.listMeta(messageIds)) {
    const list = attachmentsOf.get(meta.message_id) ?? [];
    list.push(meta);
    attachmentsOf.set(meta.message_id, list);
  }

  const senderKey = (m: MessagesTable) => `${m.workspace_id}\0${domainOf(m.from_address)}`;
  const senderOf = new Map<string, MessagesTable>();
  for (const message of messages.values()) senderOf.set(senderKey(message), message);
  // All at once, and all awaited together: a failing lookup rejects this call, never floats unawaited.
  const checks = await Promise.all(
    [...senderOf].map(async ([key, m]) => [key, await checkSenderDomain(store.domains, config, m.workspace_id, domainOf(m.from_address))] as const),
  );
  const senders = new Map(checks);
  const suppressedIn = await suppressedAmong(store.suppressions, [...entriesOf.values()].flat());

  const contexts = new Map<string, JobContext>();
  for (const job of jobs) {
    const message = messages.get(job.message_id);
    contexts.set(job.message_id, {
      message,
      entries: entriesOf.get(job.message_id) ?? [],
      suppressed: (message && suppressedIn.get(message.workspace_id)) ?? new Map(),
      sender: message ? senders.get(senderKey(message)) : undefined,
      attachments: attachmentsOf.get(job.message_id) ?? [],
    });
  }
  return contexts;
}
