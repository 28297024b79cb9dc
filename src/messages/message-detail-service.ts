import { NotFoundError } from '../lib/errors.js';
import type { Repositories, Store } from '../db/store.js';
import { formatMailbox } from '../lib/email-address.js';
import { tagsObject } from '../lib/tags.js';
import { allRecipientsOf, bccOf, ccOf, replyToOf, toOf } from '../lib/message-recipients.js';
import type { DeliveryAttemptsTable, MessageEventsTable, MessagesTable } from '../db/schema.js';
import { attachmentView, attemptView, eventView, webhookDeliveryView, type AttachmentView, type AttemptView, type RecipientEventView, type WebhookDeliveryView } from './message-views.js';

export interface RecipientView {
  to: string;
  /** The recipient's `send` entry's status and error, as the log shows them. */
  status: string;
  error: string | null;
  events: RecipientEventView[];
  attempts: AttemptView[];
  /** What the statuses alone do not say (an addition beside SPEC's fields): "No event from SES yet…", else null. */
  note: string | null;
}

/** GET /v1/messages/{id}: the message and what became of each recipient. */
export interface MessageDetail {
  id: string;
  /** The sender's bare address, as log entries carry it (and the logs' `from_email` filter takes). */
  from_email: string;
  /** The sender's display name, or '' when it has none. */
  from_name: string;
  /** The Reply-To mailboxes as one header value (comma-separated), or null. */
  reply_to: string | null;
  /** The Cc and Bcc mailboxes as given (an addition to the send's fields; `recipients` lists every recipient). */
  cc: string[];
  bcc: string[];
  subject: string;
  created_at: string;
  /** When delivery was held until (a scheduled send), or null: it went at once. */
  scheduled_at: string | null;
  /** The template the subject and bodies were rendered from, and its published version's number; null without one. */
  template_id: string | null;
  template_version: number | null;
  /** The size of the MIME message as handed over; null when it was never built (or is no longer kept). */
  size_bytes: number | null;
  has_html: boolean;
  has_text: boolean;
  /** When the bodies, attachments and built MIME were dropped (CONTENT_RETENTION_DAYS), or null while they are kept. */
  content_expired_at: string | null;
  /** The send's tags, `{name: value}` in request order; `{}` when none. */
  tags: Record<string, string>;
  /** Metadata of each attachment, in request order; never the bytes (sending/attachments). */
  attachments: AttachmentView[];
  recipients: RecipientView[];
  webhook_deliveries: WebhookDeliveryView[];
}

/** GET /v1/messages/{id}/content. */
export interface MessageContent {
  html: string | null;
  text: string | null;
  /** The MIME message exactly as handed over (DKIM-signed), or null… */
  raw: string | null;
  /** …and then why. */
  raw_unavailable_reason: string | null;
  /** When the content was dropped (CONTENT_RETENTION_DAYS): html, text and raw are then null. */
  content_expired_at: string | null;
}

/** What the detail says of a message whose content the retention pruner dropped (src/retention/). */
export function contentExpiredReason(expiredAt: string): string {
  return `Content expired on ${expiredAt.slice(0, 10)}: bodies, attachments and the message as handed over are kept for CONTENT_RETENTION_DAYS days`;
}

/** Outcomes that mean the provider was handed the built message. */
const HANDED_OVER = new Set(['delivered', 'accepted', 'temporary', 'permanent']);

async function messageOf(repos: Repositories, workspaceId: string, id: string): Promise<MessagesTable> {
  const message = await repos.messages.find(id);
  // Another workspace's message is as unknown as one that does not exist.
  if (!message || message.workspace_id !== workspaceId) throw new NotFoundError('Message not found');
  return message;
}

function groupBy<T extends { recipient: string }>(rows: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(row.recipient);
    if (group) group.push(row);
    else groups.set(row.recipient, [row]);
  }
  return groups;
}

/** Why the MIME as sent cannot be shown. */
async function whyNoRaw(repos: Repositories, message: MessagesTable, attempts: DeliveryAttemptsTable[]): Promise<string> {
  if (attempts.some((a) => a.provider !== 'inbound' && HANDED_OVER.has(a.outcome))) {
    return 'The message as handed over is no longer kept (it was sent before Mailroom kept it, or has been removed)';
  }
  const job = await repos.messages.findJobByMessage(message.id);
  if (job?.state === 'pending' && message.scheduled_at !== null && message.scheduled_at > new Date().toISOString()) {
    return `The message is scheduled for ${message.scheduled_at}; it is kept once it has been handed to the provider`;
  }
  if (job?.state === 'pending') return 'The message has not been handed to the provider yet; it is kept once it is';
  return 'The message was never built: no recipient was handed to a provider (each was suppressed or failed before delivery)';
}

/**
 * A recipient SES accepted that has heard nothing since, for longer than SES_EVENT_TIMEOUT: it keeps
 * `sent` (SES may still deliver), but likely no event will come, most often because the SNS
 * subscription is missing or unconfirmed. The metric mailroom_ses_events_overdue counts the same
 * recipients (observability/backlog-repository.ts).
 */
export function sesOverdueNote(status: string, attempts: DeliveryAttemptsTable[], events: MessageEventsTable[], timeoutMs: number, now = Date.now()): string | null {
  const last = attempts.at(-1);
  if (status !== 'sent' || !last || last.provider !== 'ses' || last.outcome !== 'accepted') return null;
  if (now - Date.parse(last.created_at) < timeoutMs) return null;
  if (events.some((e) => e.created_at >= last.created_at)) return null;
  return `No event from SES yet: SES accepted it at ${last.created_at}, longer ago than SES_EVENT_TIMEOUT; check the SNS subscription (docs/ses-notifications.md)`;
}

export function createMessageDetailService(store: Store, options: { sesEventTimeoutMs: number } = { sesEventTimeoutMs: Infinity }) {
  async function content(workspaceId: string, id: string): Promise<MessageContent> {
    return store.snapshot(async (repos) => {
      const message = await messageOf(repos, workspaceId, id);
      const expiredAt = message.content_expired_at;
      if (expiredAt !== null) return { html: null, text: null, raw: null, raw_unavailable_reason: contentExpiredReason(expiredAt), content_expired_at: expiredAt };
      const mime = await repos.messageMime.find(id);
      const raw_unavailable_reason = mime ? null : await whyNoRaw(repos, message, await repos.deliveryAttempts.listForMessage(id));
      return { html: message.html, text: message.text || null, raw: mime?.raw ?? null, raw_unavailable_reason, content_expired_at: null };
    });
  }

  return {
    async get(workspaceId: string, id: string): Promise<MessageDetail> {
      // One snapshot: a status moving meanwhile cannot show up in the entries but not in the events.
      return store.snapshot(async (repos) => {
        const message = await messageOf(repos, workspaceId, id);
        const [entries, events, attempts, deliveries, size, attachments] = await Promise.all([
          repos.messageDetail.entriesOf(id),
          repos.messageEvents.listForMessage(id),
          repos.deliveryAttempts.listForMessage(id),
          repos.messageDetail.webhookDeliveriesOf(id),
          repos.messageMime.sizeOf(id),
          repos.attachments.listMeta([id]),
        ]);
        const sendEntries = new Map(entries.filter((e) => e.type === 'send').map((e) => [e.recipient, e]));
        const [eventsOf, attemptsOf] = [groupBy(events), groupBy(attempts)];
        const recipients = allRecipientsOf(message).map(({ address }): RecipientView => {
          const entry = sendEntries.get(address);
          const [recipientEvents, recipientAttempts] = [eventsOf.get(address) ?? [], attemptsOf.get(address) ?? []];
          const status = entry?.status ?? 'sent';
          return {
            to: address,
            status,
            error: entry?.error ?? null,
            events: recipientEvents.map(eventView),
            attempts: recipientAttempts.map(attemptView),
            note: sesOverdueNote(status, recipientAttempts, recipientEvents, options.sesEventTimeoutMs),
          };
        });
        return {
          id: message.id,
          from_email: message.from_address,
          from_name: message.from_name,
          reply_to: replyToOf(message).map(formatMailbox).join(', ') || null,
          cc: ccOf(message).map(formatMailbox),
          bcc: bccOf(message).map(formatMailbox),
          subject: message.subject,
          created_at: message.created_at,
          scheduled_at: message.scheduled_at,
          template_id: message.template_id,
          template_version: message.template_version,
          size_bytes: size ?? null,
          has_html: message.html !== null,
          // '' is the opt-out from the generated text part: no text was given.
          has_text: Boolean(message.text),
          content_expired_at: message.content_expired_at,
          tags: tagsObject(message.tags),
          attachments: attachments.map(attachmentView),
          recipients,
          webhook_deliveries: deliveries.map(webhookDeliveryView),
        };
      });
    },

    content,

    /** The message's mailboxes as written into its headers, each a list (the Resend-compatible view, compat/resend). */
    async mailboxes(workspaceId: string, id: string): Promise<{ from: string; to: string[]; cc: string[]; bcc: string[]; reply_to: string[] }> {
      const message = await messageOf(store, workspaceId, id);
      return {
        from: formatMailbox({ name: message.from_name, address: message.from_address }),
        to: toOf(message).map(formatMailbox),
        cc: ccOf(message).map(formatMailbox),
        bcc: bccOf(message).map(formatMailbox),
        reply_to: replyToOf(message).map(formatMailbox),
      };
    },

    /** The MIME as handed over, alone (the dashboard's download); 404 saying why when there is none. */
    async raw(workspaceId: string, id: string): Promise<{ id: string; raw: string }> {
      const { raw, raw_unavailable_reason } = await content(workspaceId, id);
      if (raw === null) throw new NotFoundError(raw_unavailable_reason ?? 'The message as handed over is not kept');
      return { id, raw };
    },

    /**
     * One attachment with its bytes (the dashboard's download), by its 0-based
     * place in the detail's `attachments`; 404 once the content expired (the
     * pruner keeps the rows but empties them) or for a place with none.
     */
    async attachment(workspaceId: string, id: string, position: number): Promise<{ filename: string; content_type: string; content: Buffer }> {
      return store.snapshot(async (repos) => {
        const message = await messageOf(repos, workspaceId, id);
        if (message.content_expired_at !== null) throw new NotFoundError(contentExpiredReason(message.content_expired_at));
        const row = await repos.attachments.findWithContent(id, position);
        if (!row) throw new NotFoundError('Attachment not found');
        return { filename: row.filename, content_type: row.content_type, content: row.content };
      });
    },

    /** The HTML body alone (the dashboard's sandboxed frame); 404 for a message without one. */
    async html(workspaceId: string, id: string): Promise<string> {
      const message = await messageOf(store, workspaceId, id);
      if (message.content_expired_at !== null) throw new NotFoundError(contentExpiredReason(message.content_expired_at));
      if (message.html === null) throw new NotFoundError('The message has no HTML part');
      return message.html;
    },
  };
}
