import type { Selectable } from 'kysely';
import type { DeliveryAttemptsTable, MessageEventsTable, WebhookDeliveriesTable } from '../db/schema.js';
import type { AttachmentMeta } from '../sending/index.js';
import type { EngagementDetail } from '../events/index.js';

/** One thing that happened to a recipient: an event of the event path, as the detail shows it. */
export interface RecipientEventView {
  type: string;
  /** The status the event set: the recipient's (`delivered`, `bounced`, …), or the complaint entry's (`complained`). */
  status: string;
  at: string;
  /** The bounce's diagnostic, the failure's error, the suppression's reason, the complaint's feedback type or the delay's cause; the click's URL; null for a delivery. */
  detail: string | null;
  /** `opened` and `clicked`: who asked, and whether a machine did (docs/tracking.md#what-is-recorded). */
  engagement?: EngagementDetail;
}

export interface AttemptView {
  attempt: number;
  at: string;
  /** `delivered`, `accepted`, `temporary`, `permanent`, `failed` or `suppressed` (see docs/delivery.md's table of the provider's answers). */
  outcome: string;
  /** The provider's or the upstream's reply, or why no hand-over was made. */
  reply: string;
  /** How long the hand-over took; null when there was none (or the attempt is an inbound soft bounce). */
  duration_ms: number | null;
  /** `sandbox`, `smtp`, `ses`, or `inbound` for a soft bounce reported later. */
  provider: string;
  /** The upstream's own id for the hand-over (SES's MessageId), or null. */
  provider_message_id: string | null;
  /** The upstream it went to: a workspace's `ups_…`, or `server:smtp` (`server:ses`, `server:sandbox`) for MAILROOM_PROVIDER's; null when nothing was handed over (suppressed, not built) and for a soft bounce reported later. */
  upstream: string | null;
}

export interface WebhookDeliveryView {
  id: string;
  webhook_id: string;
  event: string;
  /** `pending`, `delivered` or `failed`. */
  status: string;
  attempts: number;
  last_response_status: number | null;
  /** When it is posted next; null once delivered or failed. */
  next_attempt_at: string | null;
}

/** What each event kind carries as its one-line detail; an open or click also who asked (docs/tracking.md). */
export function eventView(row: MessageEventsTable): RecipientEventView {
  const payload = JSON.parse(row.payload) as Record<string, string | undefined> & Partial<EngagementDetail>;
  if (row.type === 'opened' || row.type === 'clicked') {
    const { url, user_agent = null, ip = null, machine = false, proxy, machine_rule = null } = payload;
    const engagement = { ...(url !== undefined ? { url } : {}), user_agent, ip, machine, ...(proxy !== undefined ? { proxy } : {}), machine_rule };
    // An open or a click moves no status (the recipient's stays what delivery made it); it shows the mail got there.
    return { type: row.type, status: 'delivered', at: row.created_at, detail: url ?? null, engagement };
  }
  const detail = payload.diagnostic_code ?? payload.error ?? payload.reason ?? payload.feedback_type ?? payload.detail ?? null;
  // A delay sets no status: the recipient is still `sent`.
  return { type: row.type, status: row.type === 'delivery_delayed' ? 'sent' : row.type, at: row.created_at, detail };
}

export function attemptView(row: DeliveryAttemptsTable): AttemptView {
  return {
    attempt: Number(row.attempt),
    at: row.created_at,
    outcome: row.outcome,
    reply: row.detail,
    duration_ms: row.duration_ms === null ? null : Number(row.duration_ms),
    provider: row.provider,
    provider_message_id: row.provider_message_id,
    upstream: row.upstream ?? null,
  };
}

export function webhookDeliveryView(row: Selectable<WebhookDeliveriesTable>): WebhookDeliveryView {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event: row.event_type,
    status: row.state,
    attempts: Number(row.attempts),
    last_response_status: row.last_status,
    next_attempt_at: row.state === 'pending' ? row.available_at : null,
  };
}

/** An attachment as the message's detail lists it: what it is, never its bytes. */
export interface AttachmentView {
  filename: string;
  content_type: string;
  /** Set for an inline attachment (referenced as `cid:` from the HTML). */
  content_id: string | null;
  /** Bytes, decoded. */
  size: number;
}

export function attachmentView(row: AttachmentMeta): AttachmentView {
  return { filename: row.filename, content_type: row.content_type, content_id: row.content_id, size: Number(row.size_bytes) };
}
