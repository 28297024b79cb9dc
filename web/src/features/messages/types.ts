/** GET …/messages/:id: the message and what became of each recipient (the README's "A message's history"). */
export interface MessageDetail {
  id: string;
  from_email: string;
  /** '' when the sender has no display name. */
  from_name: string;
  reply_to: string | null;
  /** Formatted mailboxes; their recipients close `recipients`, Cc before Bcc. */
  cc: string[];
  bcc: string[];
  subject: string;
  created_at: string;
  /** When delivery was held until; null for a send that went at once. */
  scheduled_at: string | null;
  /** The send's tags, `{name: value}`; `{}` when none. */
  tags: Record<string, string>;
  /** Of the MIME as handed over; null until it has been. */
  size_bytes: number | null;
  has_html: boolean;
  has_text: boolean;
  /** When the bodies, attachments and MIME were dropped (CONTENT_RETENTION_DAYS); null while kept. */
  content_expired_at: string | null;
  /** In request order; the bytes of the one at index n are at `…/attachments/n` while the content is kept. */
  attachments: Attachment[];
  recipients: Recipient[];
  webhook_deliveries: MessageWebhookDelivery[];
}

export interface Attachment {
  filename: string;
  content_type: string;
  /** Set for an inline attachment, which the HTML shows as `cid:<content_id>`. */
  content_id: string | null;
  /** Bytes, decoded. */
  size: number;
}

export interface Recipient {
  to: string;
  status: string;
  error: string | null;
  events: RecipientEvent[];
  attempts: Attempt[];
  /** What the status alone does not say: "No event from SES yet…" past SES_EVENT_TIMEOUT; else null. */
  note: string | null;
}

export interface RecipientEvent {
  type: string;
  status: string;
  at: string;
  /** The bounce's diagnostic, the failure's error, the suppression's reason, the complaint's feedback type or the delay's cause; a click's URL. */
  detail: string | null;
  /** `opened` and `clicked`: who asked, and whether a machine did (docs/tracking.md). */
  engagement?: Engagement;
}

/** An open's or click's request as tracking recorded it. */
export interface Engagement {
  /** `clicked`: the link's original URL. */
  url?: string;
  user_agent: string | null;
  /** The client's network: an IPv4 address truncated to its /24, an IPv6 one to its /48. */
  ip: string | null;
  machine: boolean;
  /** `opened`: fetched by a mailbox provider's image proxy (Gmail's for its reader, Apple's prefetch). */
  proxy?: boolean;
  /** The machine rule's id (`apple-mpp`, `soon-after-delivery`, …) or the proxy's (`google-image-proxy`); null for a person's. */
  machine_rule: string | null;
}

export interface Attempt {
  attempt: number;
  at: string;
  outcome: string;
  /** The provider's or the upstream's reply. */
  reply: string;
  duration_ms: number | null;
  /** `sandbox`, `smtp`, `ses`, or `inbound` for a soft bounce reported later. */
  provider: string;
  /** The upstream's own id for the hand-over (SES's MessageId), or null. */
  provider_message_id: string | null;
  /** Which upstream carried it: a workspace upstream's id (`ups_…`), `server:<provider>`, or null without a hand-over. */
  upstream: string | null;
}

export interface MessageWebhookDelivery {
  id: string;
  webhook_id: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_response_status: number | null;
  next_attempt_at: string | null;
}

/** GET …/messages/:id/content. */
export interface MessageContent {
  html: string | null;
  text: string | null;
  raw: string | null;
  raw_unavailable_reason: string | null;
  content_expired_at: string | null;
}

/** The badge colour of a status, as the Logs page shows it. */
export const STATUS_BADGE: Record<string, string> = {
  delivered: 'verified',
  sent: 'pending',
  pending: 'pending',
  suppressed: 'pending',
  accepted: 'pending',
  temporary: 'pending',
  bounced: 'failed',
  complained: 'failed',
  failed: 'failed',
  permanent: 'failed',
};

export const when = (iso: string) => new Date(iso).toLocaleString();

/** `1,234 bytes`, or from 1 KB on `70.3 KB (71,990 bytes)`. */
export function byteSize(bytes: number): string {
  const exact = `${bytes.toLocaleString()} bytes`;
  return bytes < 1024 ? exact : `${(bytes / 1024).toFixed(1)} KB (${exact})`;
}
