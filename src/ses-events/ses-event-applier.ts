import type { Repositories } from '../db/store.js';
import { publishEvents, eventAbout } from '../events/index.js';
import { isComplaintFeedback } from '../inbound/index.js';
import { normalizeAddress } from '../lib/email-address.js';
import type { LogEntryRow } from '../logs/index.js';
import { moveSendEntry, recordBounce, recordComplaintOnce, recordSoftBounce, type StatusChange } from '../sending/index.js';
import type { NamedRecipient, SesAction, SesEvent } from './ses-event-reader.js';

export interface RecipientOutcome {
  recipient: string;
  effect: StatusChange | 'recorded' | 'ignored';
  reason?: string;
}

/** What one SES event came to: kept as the notification's outcome, and logged. */
export interface SesEventOutcome {
  outcome: 'applied' | 'ignored';
  event: string;
  message_id: string | null;
  matched_by?: 'ses_message_id' | 'message_id_header';
  reason?: string;
  recipients: RecipientOutcome[];
}

/** `<msg_…@sender-domain>`, as the message builder writes it: the id before the `@`. */
const MAILROOM_MESSAGE_ID = /^<?(msg_[0-9A-Za-z]+)@[^>]+>?$/;

interface Match {
  messageId: string;
  by: NonNullable<SesEventOutcome['matched_by']>;
  /** The send entries the event may touch, by normalised address. */
  entries: Map<string, LogEntryRow>;
}

/**
 * The message an event is about: the hand-over SES gave this MessageId (one
 * recipient each), else Mailroom's Message-ID header quoted in `mail.headers`
 * (a send made outside this installation's own SES hand-over, e.g. relayed
 * through SES's SMTP interface). Never a guess from addresses or subjects.
 */
async function matchMessage(repos: Repositories, event: SesEvent): Promise<Match | string> {
  if (event.sesMessageId) {
    const attempts = await repos.deliveryAttempts.findByProviderMessageId(event.sesMessageId);
    if (attempts.length > 0) {
      const messageId = attempts[0]!.message_id;
      const handedOver = new Set(attempts.filter((a) => a.message_id === messageId).map((a) => normalizeAddress(a.recipient)));
      const entries = (await repos.logs.listSendEntries([messageId])).filter((e) => handedOver.has(normalizeAddress(e.recipient)));
      return { messageId, by: 'ses_message_id', entries: new Map(entries.map((e) => [normalizeAddress(e.recipient), e])) };
    }
  }
  for (const header of event.headerMessageIds) {
    const ours = MAILROOM_MESSAGE_ID.exec(header.trim())?.[1];
    if (!ours || !(await repos.messages.find(ours))) continue;
    const entries = await repos.logs.listSendEntries([ours]);
    return { messageId: ours, by: 'message_id_header', entries: new Map(entries.map((e) => [normalizeAddress(e.recipient), e])) };
  }
  const tried = [event.sesMessageId && `SES message id ${event.sesMessageId}`, ...event.headerMessageIds.map((h) => `Message-ID ${h}`)].filter(Boolean).join(' nor ');
  return tried ? `no message here has ${tried}` : 'the event names neither an SES message id nor a Message-ID header';
}

async function act(repos: Repositories, action: SesAction, entry: LogEntryRow, named: NamedRecipient, now: string): Promise<StatusChange | 'recorded' | 'ignored'> {
  switch (action.kind) {
    case 'delivered':
      return moveSendEntry(repos, entry, { to: 'delivered', detail: null }, now);
    case 'bounced':
      return recordBounce(repos, entry, named.diagnostic ?? `${action.bounceType} / ${action.bounceSubType}`, action.bounceSubType, now);
    case 'soft_bounce':
      // As for a soft bounce the inbound receiver hears: attempt history only, the status stays.
      return recordSoftBounce(repos, entry, named.diagnostic ?? `SES: ${action.bounceType} / ${action.bounceSubType}`, now);
    case 'complained':
      return recordComplaintOnce(repos, entry, action.feedbackType, now);
    case 'rejected':
      return moveSendEntry(repos, entry, { to: 'failed', detail: `SES rejected the message: ${action.reason}` }, now);
    case 'delayed':
      await publishEvents(repos, [{ ...eventAbout(entry, 'delivery_delayed', now), detail: [action.delayType, named.diagnostic].filter(Boolean).join(': ') }]);
      return 'recorded';
  }
}

/**
 * Acts on one SES event, inside the caller's transaction, on exactly the
 * recipients it names that the matched message was sent to: through the
 * same status moves as every other source (sending/send-status-service.ts),
 * so a late or repeated event never moves a status backward.
 */
export async function applySesEvent(repos: Repositories, event: SesEvent, now: string): Promise<SesEventOutcome> {
  const outcome: SesEventOutcome = { outcome: 'ignored', event: event.type, message_id: null, recipients: [] };
  const { action } = event;
  if (!action) return { ...outcome, reason: `SES's ${event.type || 'untyped'} event is not one Mailroom acts on` };
  if (action.kind === 'complained' && !isComplaintFeedback(action.feedbackType)) {
    return { ...outcome, reason: `a complaint of feedback type ${action.feedbackType} is no complaint: nothing is recorded` };
  }
  const match = await matchMessage(repos, event);
  if (typeof match === 'string') return { ...outcome, reason: match };
  Object.assign(outcome, { message_id: match.messageId, matched_by: match.by });
  if (action.recipients.length === 0) return { ...outcome, reason: 'the event names no recipient' };
  for (const named of action.recipients) {
    const entry = match.entries.get(normalizeAddress(named.address));
    if (!entry) {
      outcome.recipients.push({ recipient: named.address, effect: 'ignored', reason: `${named.address} is not a recipient this event's message was sent to` });
      continue;
    }
    outcome.recipients.push({ recipient: entry.recipient, effect: await act(repos, action, entry, named, now) });
  }
  if (outcome.recipients.some((r) => r.effect !== 'ignored')) outcome.outcome = 'applied';
  return outcome;
}
