import type { LogEntriesTable, MessageEventType } from '../db/schema.js';
import { newId } from '../lib/ids.js';
import { tagsObject } from '../lib/tags.js';

/**
 * One thing that happened to one recipient of one message, whatever its
 * source (the worker, an inbound bounce or complaint, acceptance itself).
 * Kind-specific fields are present only for their kind.
 */
/**
 * Subtypes of hard bounces: the suppression list takes the address for these and no others. SES's
 * `Suppressed` and `OnAccountSuppressionList` are Permanent bounces of an address SES itself will not
 * send to again (src/ses-events/).
 */
export const HARD_BOUNCE_SUBTYPES: ReadonlySet<string> = new Set(['NoEmail', 'General', 'Suppressed', 'OnAccountSuppressionList']);

export interface MessageEvent {
  /** `evt_…`: stays the same however often the event is delivered, so receivers can deduplicate. */
  id: string;
  type: MessageEventType;
  workspace_id: string;
  message_id: string;
  recipient: string;
  from_email: string;
  subject: string;
  /** The message's tags as stored (JSON object text, null when none): every payload carries them as `tags`. */
  tags: string | null;
  /** ISO 8601 UTC, when it happened. */
  timestamp: string;
  /** `failed`: why the send failed. */
  error?: string;
  /** `suppressed`: why the address is on the suppression list. */
  reason?: string;
  /** `bounced`: SPEC.md §6.2's bounce fields. */
  bounce?: { type: 'Permanent'; subtype: string; diagnostic_code: string };
  /** `complained`: the report's feedback type (`abuse`, …). */
  feedback_type?: string;
  /** `delivery_delayed`: what the upstream said of the delay (SES's delayType and diagnostic). */
  detail?: string;
  /** `opened` and `clicked` (src/tracking/): who asked, and whether a machine did. */
  engagement?: EngagementDetail;
}

/** An open's or click's request, as tracking records it (docs/tracking.md#what-is-recorded). */
export interface EngagementDetail {
  /** `clicked`: the link's original URL. */
  url?: string;
  user_agent: string | null;
  /** The client's address truncated to its /24 (IPv4) or /48 (IPv6) network. */
  ip: string | null;
  machine: boolean;
  /** `opened`: fetched by a mailbox provider's image proxy for its reader (Gmail's). */
  proxy?: boolean;
  /** The rule that called it a machine's or a proxy's, or null. */
  machine_rule: string | null;
}

/**
 * The flat JSON object of SPEC.md §6.2 for the event, plus its `id` and the
 * message's `tags` (an object, `{}` when none): the body a webhook receiver
 * gets. The general fields are on every kind; the bounce, complaint,
 * suppression and failure fields on theirs.
 */
export function eventPayload(event: MessageEvent): Record<string, string | boolean | null | Record<string, string>> {
  const payload: Record<string, string | boolean | null | Record<string, string>> = {
    id: event.id,
    event: event.type,
    message_id: event.message_id,
    to: event.recipient,
    from: event.from_email,
    subject: event.subject,
    timestamp: event.timestamp,
    workspace_id: event.workspace_id,
    tags: tagsObject(event.tags),
  };
  if (event.bounce) {
    payload.bounce_type = event.bounce.type;
    payload.bounce_subtype = event.bounce.subtype;
    payload.diagnostic_code = event.bounce.diagnostic_code;
  }
  if (event.feedback_type !== undefined) payload.feedback_type = event.feedback_type;
  if (event.reason !== undefined) payload.reason = event.reason;
  if (event.error !== undefined) payload.error = event.error;
  if (event.detail !== undefined) payload.detail = event.detail;
  if (event.engagement) Object.assign(payload, event.engagement);
  return payload;
}

/** An event about the recipient of a `send` entry, with the general fields only: its source adds the kind-specific ones. */
export function eventAbout(
  entry: Pick<LogEntriesTable, 'workspace_id' | 'message_id' | 'recipient' | 'from_email' | 'subject' | 'tags'>,
  type: MessageEventType,
  timestamp: string,
): MessageEvent {
  const { workspace_id, message_id, recipient, from_email, subject, tags } = entry;
  return { id: newId('evt'), type, workspace_id, message_id, recipient, from_email, subject, tags, timestamp };
}
