import { publishEvents } from '../../events/index.js';
import type { MessageEvent } from '../../events/index.js';
import { addressesToLookUp } from '../../suppressions/index.js';
import type { AcceptedSend } from './accepted-send.js';
import { holdBackSuppressed } from './suppressed-holdback.js';
import type { AcceptanceHolds, AcceptanceLookups } from './acceptance-checks-repository.js';
import type { Store } from '../../db/store.js';
import { UnauthorizedError } from '../../lib/errors.js';
import type { LogEntryRow } from '../../logs/index.js';
import type { NewDeliveryJob } from '../messages-repository.js';

export type { AcceptedSend };

/**
 * How the write of one send ended: written (`queued`: with an outbox row, i.e. someone is left to deliver
 * to), not written because its API key no longer exists or its remembered sender domain is no longer
 * verified (`refused`), or failed.
 */
export type SendWriteResult = { ok: true; queued: boolean } | { ok: false; refused: 'key' | 'sender-domain' } | { ok: false; error: unknown };

/** A send not written because the sender domain the API remembered as verified is no longer (AcceptedSend.senderDomainId). */
export class SenderDomainChangedError extends Error {
  constructor() {
    super('The sender domain is no longer verified');
  }
}

/** Writes accepted sends durably; `write` resolves only once the send's rows are committed. */
export interface AcceptedSendWriter {
  write(send: AcceptedSend): Promise<{ queued: boolean }>;
  /** Call once no write is pending (the HTTP server has drained): releases what the writer holds. */
  close(): Promise<void>;
}

/**
 * The memory of the sends' attachment bytes, to hand to another thread with
 * postMessage's transfer list rather than copied by structured clone: up to
 * 40 MB a send. Each Buffer owns its ArrayBuffer (decodeBase64, ownedBytes).
 */
export function attachmentMemoryOf(sends: AcceptedSend[]): ArrayBuffer[] {
  return sends.flatMap((s) => (s.attachments ?? []).map((a) => a.content.buffer as ArrayBuffer));
}

/** Structured clone hands bytes over as plain Uint8Arrays: make them Buffers again (no copy), as the store expects. */
export function reviveAttachments(sends: AcceptedSend[]): AcceptedSend[] {
  for (const send of sends) {
    for (const a of send.attachments ?? []) a.content = Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength);
  }
  return sends;
}

/** A send waiting for its batch's commit, with its caller's promise to settle. */
export interface PendingSend {
  send: AcceptedSend;
  resolve(result: { queued: boolean }): void;
  reject(error: unknown): void;
}

/** Settles each caller of a batch from writeAcceptedSends' answer for its send. */
export function settleSends(batch: PendingSend[], results: SendWriteResult[]): void {
  batch.forEach((pending, i) => {
    const result: SendWriteResult = results[i] ?? { ok: false, error: new Error('write failed') };
    if (result.ok) pending.resolve({ queued: result.queued });
    else if ('refused' in result) pending.reject(result.refused === 'key' ? new UnauthorizedError() : new SenderDomainChangedError());
    else pending.reject(result.error);
  });
}

/**
 * Why a send may not be written any more, or null: its API key deleted, or the sender domain the API
 * remembered as verified no longer so. Both are held until the transaction ends (see
 * AcceptanceChecksRepository.hold), so that a change cannot slip in between this check and the commit.
 */
function refusalOf(holds: AcceptanceHolds): (send: AcceptedSend) => 'key' | 'sender-domain' | null {
  return (s) => {
    if (s.keyId !== undefined && !holds.liveKeys.has(s.keyId)) return 'key';
    if (s.senderDomainId !== undefined && !holds.verifiedDomains.has(s.senderDomainId)) return 'sender-domain';
    return null;
  };
}

/** What the batch's transaction must look up: its keys, its remembered sender domains, its recipients' suppressions. */
function lookupsOf(sends: AcceptedSend[]): AcceptanceLookups {
  const idsOf = (pick: (s: AcceptedSend) => string | undefined) => [...new Set(sends.flatMap((s) => pick(s) ?? []))];
  return { keyIds: idsOf((s) => s.keyId), domainIds: idsOf((s) => s.senderDomainId), addresses: addressesToLookUp(sends.flatMap((s) => s.entries)) };
}

/**
 * Writes a batch of sends in one transaction: recipients on the suppression
 * list held back (see holdBackSuppressed), then multi-row INSERTs (messages,
 * outbox rows, log entries and the counters' upserts in one statement on PostgreSQL: insertTogether)
 * and one commit for the batch. If that fails, each send (or group of sends,
 * see AcceptedSend.group) is written alone, so one bad send cannot fail its
 * neighbours. Answers for each send, in order.
 */
export async function writeAcceptedSends(store: Store, sends: AcceptedSend[]): Promise<SendWriteResult[]> {
  const writeAll = (some: AcceptedSend[]) =>
    store.transaction(async (repos) => {
      // One statement for every look-up (a round trip on PostgreSQL): the refused sends' recipients are looked up too.
      const holds = await repos.acceptanceChecks.hold(lookupsOf(some));
      const refusal = refusalOf(holds);
      const settled = holdBackSuppressed(some.filter((s) => refusal(s) === null), holds.suppressed);
      // Messages, outbox rows, log entries and their counters: one statement on PostgreSQL (insertTogether).
      // Nothing after it counts: the attachments and the events are no log entries.
      const rows = repos.messages.acceptedParts(settled.map((s) => s.message), settled.flatMap((s) => (s.job ? [s.job] : [])));
      const attachments = settled.flatMap((s) => s.attachments ?? []);
      const events = settled.flatMap((s) => s.events);
      // Without attachments or events nothing follows: on PostgreSQL the COMMIT rides with this statement.
      const lastStatement = attachments.length === 0 && events.length === 0;
      await repos.logs.insertMany(settled.flatMap((s) => s.entries), rows, { lastCount: true, lastStatement });
      await repos.attachments.insertMany(attachments);
      await publishEvents(repos, events);
      const written = new Map(settled.map((s) => [s.message.id, s.job !== null]));
      return some.map((s): SendWriteResult => {
        const queued = written.get(s.message.id);
        return queued === undefined ? { ok: false, refused: refusal(s)! } : { ok: true, queued };
      });
    });
  const failed = (error: unknown): SendWriteResult => ({ ok: false, error: error ?? new Error('write failed') });
  try {
    return await writeAll(sends);
  } catch (error) {
    if (sends.length === 1) return [failed(error)];
    const units = new Map<unknown, number[]>();
    sends.forEach((send, i) => {
      const key = send.group ?? i;
      units.set(key, [...(units.get(key) ?? []), i]);
    });
    if (units.size === 1) return sends.map(() => failed(error));
    const results: SendWriteResult[] = new Array(sends.length);
    for (const indexes of units.values()) {
      const written = await writeAll(indexes.map((i) => sends[i]!)).catch((e: unknown) => indexes.map(() => failed(e)));
      indexes.forEach((sendIndex, k) => (results[sendIndex] = written[k] ?? failed(undefined)));
    }
    return results;
  }
}
