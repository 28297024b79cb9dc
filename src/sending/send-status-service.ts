import { publishEvents } from '../events/index.js';
import { eventAbout, type MessageEvent } from '../events/index.js';
import { newId, nowIso } from '../lib/ids.js';
import type { Repositories, Store } from '../db/store.js';
import type { LogEntryRow } from '../logs/index.js';
import { judgeTransition, type SendStatus } from './send-status.js';

export type StatusChange = 'move' | 'duplicate' | 'refused' | 'unknown';

/** A status a `send` entry can be moved to, with what its event carries. */
export type StatusMove =
  | { to: 'delivered'; detail: string | null }
  | { to: 'bounced'; detail: string; bounceSubtype?: string }
  | { to: 'failed'; detail: string }
  | { to: 'suppressed'; detail: string; reason: string };

function eventOf(entry: LogEntryRow, move: StatusMove, now: string): MessageEvent {
  const event = eventAbout(entry, move.to, now);
  if (move.to === 'bounced') event.bounce = { type: 'Permanent', subtype: move.bounceSubtype ?? 'General', diagnostic_code: move.detail };
  if (move.to === 'failed') event.error = move.detail;
  if (move.to === 'suppressed') event.reason = move.reason;
  return event;
}

/**
 * Where the events of status moves go: published at once (the default), or,
 * with `into`, gathered for the caller to publish together once its
 * transaction's moves are done (the outcome recorder: one pass of the event
 * path per batch, not one per recipient).
 */
export interface EventSink {
  into?: MessageEvent[];
}

async function emit(repos: Repositories, event: MessageEvent, sink: EventSink): Promise<void> {
  if (sink.into) sink.into.push(event);
  else await publishEvents(repos, [event]);
}

/**
 * Moves one `send` entry along the transition table, its stats counters with
 * it, and publishes the event of the move on the event path; all with the
 * given repositories, so inside the caller's transaction. A duplicate or a
 * backward move changes nothing and publishes nothing. Conditional updates,
 * not locks: if a concurrent writer moved the entry since it was read, judge
 * again from what is there now.
 */
export async function moveSendEntry(repos: Repositories, entry: LogEntryRow, move: StatusMove, now = nowIso(), sink: EventSink = {}): Promise<StatusChange> {
  let current: LogEntryRow | undefined = entry;
  while (current) {
    const verdict = judgeTransition(current.status as SendStatus, move.to);
    if (verdict !== 'move') return verdict;
    if (await repos.logs.moveStatus(current, current.status, move.to, move.detail, now)) {
      await emit(repos, eventOf(current, move, now), sink);
      return 'move';
    }
    current = await repos.logs.findSendEntry(current.message_id, current.recipient);
  }
  return 'unknown';
}

/**
 * Records that the recipient of `entry` complained about the message (a
 * feedback loop's report): a `complaint` log entry beside the `send` entry,
 * which keeps its status, and the `complained` event. Inside the caller's transaction.
 */
export async function recordComplaint(repos: Repositories, entry: LogEntryRow, feedbackType: string, now = nowIso(), sink: EventSink = {}): Promise<void> {
  await repos.logs.insertMany([{ ...entry, id: newId('log'), type: 'complaint', status: 'complained', error: null, created_at: now, updated_at: now }]);
  await emit(repos, { ...eventAbout(entry, 'complained', now), feedback_type: feedbackType }, sink);
}

/**
 * Bounces the recipient of `entry` (a report heard later: a DSN, SES's event), with a `bounce` log entry
 * beside the `send` entry the first time only. Inside the caller's transaction.
 */
export async function recordBounce(repos: Repositories, entry: LogEntryRow, detail: string, bounceSubtype: string, now = nowIso()): Promise<StatusChange> {
  const change = await moveSendEntry(repos, entry, { to: 'bounced', detail, bounceSubtype }, now);
  if (change === 'move') {
    await repos.logs.insertMany([{ ...entry, id: newId('log'), type: 'bounce', status: 'bounced', error: detail, created_at: now, updated_at: now }]);
  }
  return change;
}

/** recordComplaint, once per recipient and message: a second report of it is a `duplicate` and records nothing. */
export async function recordComplaintOnce(repos: Repositories, entry: LogEntryRow, feedbackType: string, now = nowIso()): Promise<'move' | 'duplicate'> {
  if (await repos.logs.findSendEntry(entry.message_id, entry.recipient, 'complaint')) return 'duplicate';
  await recordComplaint(repos, entry, feedbackType, now);
  return 'move';
}

/**
 * A soft bounce reported later (a delay, a temporary refusal, which may pass next time): attempt history
 * only, provider `inbound`, numbered as the message's latest attempt; the status stays.
 */
export async function recordSoftBounce(repos: Repositories, entry: LogEntryRow, detail: string, now = nowIso()): Promise<'recorded'> {
  const job = await repos.messages.findJobByMessage(entry.message_id);
  await repos.deliveryAttempts.insertMany([
    {
      id: newId('att'), workspace_id: entry.workspace_id, message_id: entry.message_id, recipient: entry.recipient,
      attempt: Number(job?.attempts ?? 0), provider: 'inbound', outcome: 'temporary', detail, duration_ms: null, provider_message_id: null, upstream: null, created_at: now,
    },
  ]);
  return 'recorded';
}

/**
 * Records an outcome for one recipient of one message (a delivery, a bounce,
 * a failure) in a transaction of its own. The worker and the inbound parsers
 * both move entries through moveSendEntry, so every source obeys one table.
 */
export function createSendStatusService(store: Store) {
  return {
    /**
     * `move` when the entry moved; `duplicate` when it was already there (the
     * same report twice changes nothing); `refused` when the move would go
     * backward; `unknown` when there is no such recipient of such a message.
     */
    async record(messageId: string, recipient: string, move: StatusMove): Promise<StatusChange> {
      return store.transaction(async (repos) => {
        const entry = await repos.logs.findSendEntry(messageId, recipient);
        return entry ? moveSendEntry(repos, entry, move) : 'unknown';
      });
    },
  };
}
