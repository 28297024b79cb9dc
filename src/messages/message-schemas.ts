import { Type } from 'typebox';
import { Nullable, Tags, Timestamp } from '../openapi/index.js';

/** The answers of /v1/messages/{id}… as the OpenAPI document states them (message-detail-service.ts, message-views.ts). */

const RecipientEvent = Type.Object(
  {
    type: Type.String(),
    status: Type.String(),
    at: Timestamp,
    detail: Nullable(Type.String({ description: "The bounce's diagnostic, the failure's error, the suppression's reason, the complaint's feedback type or the delay's cause (`delivery_delayed`, SES's DeliveryDelay); a click's URL." })),
    engagement: Type.Optional(
      Type.Object(
        {
          url: Type.Optional(Type.String({ description: "`clicked`: the link's original URL." })),
          user_agent: Nullable(Type.String()),
          ip: Nullable(Type.String({ description: "The client's network: its address truncated to /24 (IPv4) or /48 (IPv6)." })),
          machine: Type.Boolean({ description: 'Made by a machine (a mailbox proxy prefetching, a link scanner), not a person (docs/tracking.md#what-counts-as-a-machine).' }),
          proxy: Type.Optional(Type.Boolean({ description: "`opened`: fetched by a mailbox provider's image proxy as its reader opened the mail (Gmail's)." })),
          machine_rule: Nullable(Type.String({ description: 'The rule that decided `machine` or `proxy`, or null.' })),
        },
        { additionalProperties: false, description: '`opened` and `clicked` only (their status is `delivered`: they move no status).' },
      ),
    ),
  },
  { additionalProperties: false },
);

const Attempt = Type.Object(
  {
    attempt: Type.Integer(),
    at: Timestamp,
    outcome: Type.String({ description: '`delivered`, `accepted`, `temporary`, `permanent`, `failed` or `suppressed`.' }),
    reply: Type.String({ description: "The provider's or the upstream's reply, or why no hand-over was made." }),
    duration_ms: Nullable(Type.Integer()),
    provider: Type.String({ description: '`sandbox`, `smtp`, `ses`, or `inbound` for a soft bounce reported later.' }),
    provider_message_id: Nullable(Type.String({ description: "The upstream's own id for the hand-over (SES's MessageId); null where the upstream gives none." })),
    upstream: Nullable(Type.String({ description: "The upstream it went to: a workspace's `ups_…`, or `server:smtp`, `server:ses`, `server:sandbox` for MAILROOM_PROVIDER's (docs/upstreams.md); null when nothing was handed over (suppressed, not built) and for a soft bounce reported later." })),
  },
  { additionalProperties: false },
);

const MessageWebhookDelivery = Type.Object(
  {
    id: Type.String(),
    webhook_id: Type.String(),
    event: Type.String(),
    status: Type.String({ enum: ['pending', 'delivered', 'failed'] }),
    attempts: Type.Integer(),
    last_response_status: Nullable(Type.Integer()),
    next_attempt_at: Nullable(Timestamp),
  },
  { additionalProperties: false },
);

const Attachment = Type.Object(
  { filename: Type.String(), content_type: Type.String(), content_id: Nullable(Type.String()), size: Type.Integer({ description: 'Bytes, decoded.' }) },
  { additionalProperties: false },
);

const Recipient = Type.Object(
  {
    to: Type.String(),
    status: Type.String({ enum: ['sent', 'delivered', 'bounced', 'complained', 'suppressed', 'failed'] }),
    error: Nullable(Type.String()),
    events: Type.Array(RecipientEvent),
    attempts: Type.Array(Attempt),
    note: Nullable(Type.String({ description: 'What the status alone does not say: "No event from SES yet…" for a recipient SES accepted that has heard nothing for longer than SES_EVENT_TIMEOUT; else null.' })),
  },
  { additionalProperties: false },
);

export const MessageDetail = Type.Object(
  {
    id: Type.String(),
    from_email: Type.String(),
    from_name: Type.String({ description: "The sender's display name, or '' when it has none." }),
    reply_to: Nullable(Type.String({ description: 'The Reply-To mailboxes as one header value.' })),
    cc: Type.Array(Type.String()),
    bcc: Type.Array(Type.String()),
    subject: Type.String(),
    created_at: Timestamp,
    scheduled_at: Nullable(Timestamp),
    template_id: Nullable(Type.String({ description: 'tpl_…: the template the content was rendered from, or null.' })),
    template_version: Nullable(Type.Integer({ description: "That template's published version." })),
    size_bytes: Nullable(Type.Integer()),
    has_html: Type.Boolean(),
    has_text: Type.Boolean(),
    content_expired_at: Nullable(Type.String({ description: 'When the bodies, attachments and MIME were dropped (CONTENT_RETENTION_DAYS), ISO 8601 UTC; null while they are kept.' })),
    tags: Tags,
    attachments: Type.Array(Attachment),
    recipients: Type.Array(Recipient),
    webhook_deliveries: Type.Array(MessageWebhookDelivery),
  },
  { additionalProperties: false },
);

export const MessageContent = Type.Object(
  {
    html: Nullable(Type.String()),
    text: Nullable(Type.String()),
    raw: Nullable(Type.String({ description: 'The MIME message exactly as handed over, DKIM-signed.' })),
    raw_unavailable_reason: Nullable(Type.String()),
    content_expired_at: Nullable(Type.String({ description: 'When the content was dropped (CONTENT_RETENTION_DAYS), ISO 8601 UTC: html, text and raw are then null.' })),
  },
  { additionalProperties: false },
);

export const CancelResult = Type.Object(
  { message_id: Type.String(), canceled_recipients: Type.Integer(), canceled_at: Timestamp },
  { additionalProperties: false },
);
