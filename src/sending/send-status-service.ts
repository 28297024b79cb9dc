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
