/**
 * The API's request and response shapes, by the names the SDK uses.
 *
 * TEMPORARY: written by hand from the routes and README.md's API table while
 * the OpenAPI document (GET /v1/openapi.json, issue 17 point 1) is not yet on
 * this branch. Once it is, `npm run generate --prefix sdk` writes
 * src/openapi.ts from it and these become aliases of the generated types.
 */

export type SendStatus = 'sent' | 'suppressed' | 'failed';
export type LogType = 'send' | 'bounce' | 'complaint';
export type LogStatus = 'sent' | 'delivered' | 'bounced' | 'complained' | 'suppressed' | 'failed';
export type WebhookEventType = 'delivered' | 'bounced' | 'complained' | 'suppressed' | 'failed';

export interface Attachment {
  filename: string;
  /** The file in base64. */
  content: string;
  content_type?: string | null;
  /** Makes the attachment inline, referred to from the HTML as `cid:<content_id>`. */
  content_id?: string | null;
}

/** POST /v1/send's body (SPEC.md §2.1 and the README's send fields). */
export interface SendEmailRequest {
  to: string[];
  cc?: string[] | null;
  bcc?: string[] | null;
  from_email: string;
  subject: string;
  html?: string | null;
  text?: string | null;
  reply_to?: string | string[] | null;
  headers?: Record<string, string> | null;
  tags?: Array<{ name: string; value: string }> | null;
  /** ISO 8601 with an offset, at most 30 days ahead. */
  scheduled_at?: string | null;
  attachments?: Attachment[] | null;
}

export interface SendEmailResult {
  message_id: string;
  status: SendStatus;
  /** Why, when status is `failed`. */
  error?: string;
}

export interface LogEntry {
  id: string;
  type: LogType;
  status: LogStatus;
  to: string;
  from_email: string;
  subject: string;
  message_id: string;
  error: string | null;
  created_at: string;
  tags: Record<string, string>;
}

/** GET /v1/send/logs's query. */
export interface ListLogsParams {
  limit?: number;
  offset?: number;
  /** A log entry's id: the page starts after it (the cursor). */
  before?: string;
  type?: LogType;
  status?: LogStatus;
  message_id?: string;
  to?: string;
  from_email?: string;
  since?: string;
  until?: string;
  /** `name:value`. */
  tag?: string;
}

export interface Stats {
  total_sent: number;
  delivered: number;
  bounced: number;
  complained: number;
  suppressed: number;
  failed: number;
}

export interface StatsParams {
  since?: string;
  until?: string;
}

export interface TimeseriesParams extends StatsParams {
  interval?: 'hour' | 'day';
}

export interface StatsBucket extends Stats {
  bucket_start: string;
}

export interface RecipientEvent {
  type: string;
  status: string;
  at: string;
  detail: string | null;
}

export interface DeliveryAttempt {
  attempt: number;
  at: string;
  outcome: string;
  reply: string;
  duration_ms: number | null;
  provider: string;
}

export interface MessageRecipient {
  to: string;
  status: string;
  error: string | null;
  events: RecipientEvent[];
  attempts: DeliveryAttempt[];
}

export interface MessageWebhookDelivery {
  id: string;
  webhook_id: string;
  event: string;
  status: string;
  attempts: number;
  last_response_status: number | null;
  next_attempt_at: string | null;
}

/** GET /v1/messages/{id}. */
export interface Email {
  id: string;
  from_email: string;
  from_name: string;
  reply_to: string | null;
  cc: string[];
  bcc: string[];
  subject: string;
  created_at: string;
  scheduled_at: string | null;
  size_bytes: number | null;
  has_html: boolean;
  has_text: boolean;
  tags: Record<string, string>;
  attachments: Array<{ filename: string; content_type: string; content_id: string | null; size: number }>;
  recipients: MessageRecipient[];
  webhook_deliveries: MessageWebhookDelivery[];
}

export interface EmailContent {
  html: string | null;
  text: string | null;
  raw: string | null;
  raw_unavailable_reason: string | null;
}

export interface CanceledEmail {
  message_id: string;
  canceled_recipients: number;
  canceled_at: string;
}

export interface Domain {
  id: string;
  domain: string;
  status: 'pending' | 'verified' | 'failed';
  created_at: string;
}

export interface DnsRecordCheck {
  found: boolean;
  matches: boolean;
  values: string[];
  error?: string;
}

export interface DnsRecord {
  type: 'TXT' | 'MX';
  name: string;
  value: string;
  priority?: number;
  purpose: 'dkim' | 'spf' | 'return_path_mx' | 'return_path_spf' | 'dmarc';
  check?: DnsRecordCheck;
}

export interface DomainDetail extends Domain {
  verified_at: string | null;
  last_checked_at: string | null;
  error: string | null;
  records: DnsRecord[];
}

export interface Deleted {
  id: string;
  deleted: true;
}

export type ApiKeyPermission = 'full_access' | 'sending_access';

export interface CreateApiKeyRequest {
  name: string;
  permission?: ApiKeyPermission;
  domain_id?: string;
}

export interface ApiKey {
  id: string;
  name: string;
  masked_key: string;
  created_at: string;
  last_used_at: string | null;
  permission: ApiKeyPermission;
  domain_id: string | null;
}

export interface CreatedApiKey {
  id: string;
  name: string;
  /** The full key: shown only in this answer. */
  key: string;
  masked_key: string;
  created_at: string;
  permission: ApiKeyPermission;
  domain_id: string | null;
}

export interface CreateWebhookRequest {
  url: string;
  events?: WebhookEventType[];
}

export interface Webhook {
  id: string;
  url: string;
  events: WebhookEventType[];
  masked_secret: string | null;
  created_at: string;
  updated_at: string;
}

export interface CreatedWebhook {
  id: string;
  url: string;
  events: WebhookEventType[];
  /** `whsec_…`: shown only here and at rotation. */
  secret: string;
  created_at: string;
}

export interface WebhookDelivery {
  id: string;
  event_id: string;
  event_type: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDetail extends Webhook {
  deliveries: WebhookDelivery[];
}

export interface RotatedWebhookSecret {
  id: string;
  secret: string;
}

export type SuppressionReason = 'hard_bounce' | 'complaint' | 'manual';

export interface Suppression {
  email: string;
  reason: SuppressionReason;
  source_message_id: string | null;
  created_at: string;
}

export interface ListSuppressionsParams {
  limit?: number;
  offset?: number;
  reason?: SuppressionReason;
}

export interface AddSuppressionRequest {
  email: string;
  reason?: 'manual';
}

export interface DeletedSuppression {
  email: string;
  deleted: true;
}

/**
 * The body of a webhook request (SPEC.md §6.2 plus the event's `id` and the
 * message's `tags`): the general fields on every kind, and each kind's own.
 * A dashboard `test` event carries only `id`, `event`, `timestamp` and `workspace_id`.
 */
export interface WebhookEvent {
  id: string;
  event: WebhookEventType | 'test';
  timestamp: string;
  workspace_id: string;
  message_id?: string;
  to?: string;
  from?: string;
  subject?: string;
  tags?: Record<string, string>;
  /** bounced */
  bounce_type?: string;
  bounce_subtype?: string;
  diagnostic_code?: string;
  /** complained */
  feedback_type?: string;
  /** suppressed: the suppression list entry's reason */
  reason?: string;
  /** failed */
  error?: string;
}
