import type { Generated } from 'kysely';
import type { InvitationsTable, SessionsTable, SetupTokensTable, SignInFailuresTable, UsersTable, WorkspaceMembersTable } from './people-schema.js';
import type { IdempotencyKeysTable, WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from './webhooks-schema.js';
import type { SnsNotificationsTable, SnsSubscriptionsTable } from './sns-schema.js';
import type { TemplatesTable, TemplateVersionsTable } from './templates-schema.js';
import type { EngagementFirstsTable, EngagementHourlyTable } from './tracking-schema.js';
import type { DeliveryAttemptsTable, DeliveryJobsTable, SandboxMessagesTable } from './delivery-schema.js';
import type { ProviderRefusalsTable, SendSlotsTable, UpstreamHealthTable, UpstreamsTable } from './provider-state-schema.js';

export type * from './people-schema.js';
export type * from './webhooks-schema.js';
export type * from './sns-schema.js';
export type * from './templates-schema.js';
export type * from './tracking-schema.js';
export type * from './provider-state-schema.js';
export type * from './delivery-schema.js';

/** Table shapes as Kysely sees them. Timestamps are ISO 8601 UTC strings. */
export interface Database {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  domains: DomainsTable;
  messages: MessagesTable;
  log_entries: LogEntriesTable;
  log_entry_tags: LogEntryTagsTable;
  log_counters: LogCountersTable;
  log_hourly_counts: LogHourlyCountsTable;
  suppressions: SuppressionsTable;
  delivery_jobs: DeliveryJobsTable;
  sandbox_messages: SandboxMessagesTable;
  message_mime: MessageMimeTable;
  delivery_attempts: DeliveryAttemptsTable;
  message_events: MessageEventsTable;
  inbound_reports: InboundReportsTable;
  server_secrets: ServerSecretsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  users: UsersTable;
  workspace_members: WorkspaceMembersTable;
  sessions: SessionsTable;
  sign_in_failures: SignInFailuresTable;
  setup_tokens: SetupTokensTable;
  invitations: InvitationsTable;
  idempotency_keys: IdempotencyKeysTable;
  message_attachments: MessageAttachmentsTable;
  maintenance_leases: MaintenanceLeasesTable;
  retention_marks: RetentionMarksTable;
  retention_held: RetentionHeldTable;
  provider_refusals: ProviderRefusalsTable;
  send_slots: SendSlotsTable;
  upstreams: UpstreamsTable;
  upstream_health: UpstreamHealthTable;
  sns_notifications: SnsNotificationsTable;
  sns_subscriptions: SnsSubscriptionsTable;
  templates: TemplatesTable;
  template_versions: TemplateVersionsTable;
  engagement_hourly: EngagementHourlyTable;
  engagement_firsts: EngagementFirstsTable;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  name: string;
  /** The key's first characters after `mr_`: a public handle to find the row by. */
  lookup_id: string;
  /** SHA-256 of the full key, hex. The key itself is never stored. */
  key_hash: string;
  masked_key: string;
  created_at: string;
  last_used_at: string | null;
  /** What the key may do: every /v1 route, or only sending (migration 0016). */
  permission: ApiKeyPermission;
  /** A sending key's only sender domain; null for any of the workspace's domains. */
  domain_id: string | null;
}

export type ApiKeyPermission = 'full_access' | 'sending_access';

export interface DomainsTable {
  id: string;
  workspace_id: string;
  domain: string;
  status: 'pending' | 'verified' | 'failed';
  dkim_selector: string;
  dkim_private_key: string;
  /** Base64 SubjectPublicKeyInfo, the `p=` value of the DKIM record. */
  dkim_public_key: string;
  return_path_domain: string;
  verification_error: string | null;
  created_at: string;
  verified_at: string | null;
  last_checked_at: string | null;
  /** JSON array of the upstream ids a send from the domain is tried through, in order; null: the server's (0028). */
  upstream_ids: string | null;
  /** Whether sends from the domain track opens and clicks unless a send says otherwise (0 or 1; 0030). */
  open_tracking: number;
  click_tracking: number;
  /** The host tracked links and the open pixel use instead of PUBLIC_URL, or null (0030). */
  tracking_domain: string | null;
  /** Its CNAME's check: `pending`, `verified` or `failed`; null without a tracking domain. */
  tracking_domain_status: 'pending' | 'verified' | 'failed' | null;
}

export interface MessagesTable {
  id: string;
  workspace_id: string;
  /** The parsed From mailbox; the header is composed from these, never from raw input. */
  from_name: string;
  from_address: string;
  /** JSON array of the parsed Reply-To mailboxes ({name, address}; one bare object in rows before 0015), or null. */
  reply_to: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  /** JSON array of {name, address}, in request order: the To recipients. */
  recipients: string;
  /** JSON arrays of {name, address} like `recipients`, or null when none (0015). */
  cc: string | null;
  bcc: string | null;
  /** JSON array of the caller's [name, value] header pairs, or null when none (0015). */
  headers: string | null;
  /** JSON object of the caller's tags ({name: value}, request order), or null when none (0019). */
  tags: string | null;
  /** When delivery was held until (ISO 8601 UTC), or null for a send that went at once (0020). */
  scheduled_at: string | null;
  created_at: string;
  /** When the retention pruner dropped the bodies, attachments and MIME (0021); null while they are kept. */
  content_expired_at: string | null;
  /** The template the subject and bodies were rendered from and its version number, or null (0029). */
  template_id: string | null;
  template_version: number | null;
  /** Whether the message's opens and clicks are tracked (0 or 1), settled at acceptance (0030). */
  track_opens: number;
  track_clicks: number;
}

/** One attachment of a message, its decoded bytes included (migration 0018). */
export interface MessageAttachmentsTable {
  message_id: string;
  /** 0-based, request order. */
  position: number;
  workspace_id: string;
  filename: string;
  content_type: string;
  /** Without angle brackets; set for an inline attachment. */
  content_id: string | null;
  size_bytes: number;
  content: Buffer;
}

export type LogType = 'send' | 'bounce' | 'complaint';
export type LogStatus = 'sent' | 'delivered' | 'bounced' | 'complained' | 'suppressed' | 'failed';

export interface LogEntriesTable {
  id: string;
  workspace_id: string;
  message_id: string;
  type: LogType;
  status: LogStatus;
  recipient: string;
  from_email: string;
  subject: string;
  error: string | null;
  /** The message's tags, as on its row (0019): a page of the log reads them off the entries it lists. */
  tags: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * One row per tag per log entry (0019), written with the entry: the logs'
 * `tag=name:value` filter reads its key (workspace, name, value, then the
 * log's order) as an index, newest first, at any log size.
 */
export interface LogEntryTagsTable {
  workspace_id: string;
  name: string;
  value: string;
  /** The entry's. */
  created_at: string;
  log_id: string;
}

/** Number of log entries per (workspace, type, status), kept in the transaction that writes (or, later, moves) them. */
export interface LogCountersTable {
  workspace_id: string;
  type: LogType;
  status: LogStatus;
  count: number;
}

/**
 * The same counts per hour of the entries' `created_at` (`2026-11-22T10:00:00.000Z`), a column per
 * (type, status) pair (stats/log-count-columns.ts): counts over a time range without counting entries.
 */
export interface LogHourlyCountsTable {
  workspace_id: string;
  hour: string;
  send_sent: number;
  send_delivered: number;
  send_bounced: number;
  send_failed: number;
  send_suppressed: number;
  bounce_bounced: number;
  complaint_complained: number;
}

export interface SuppressionsTable {
  workspace_id: string;
  /** Lower-cased address. */
  email: string;
  reason: string;
  source_message_id: string | null;
  created_at: string;
}

/** A message as built and handed over, DKIM-signed: the latest attempt's. */
export interface MessageMimeTable {
  message_id: string;
  workspace_id: string;
  raw: string;
  size_bytes: number;
  created_at: string;
}

/**
 * SPEC.md §6.1's kinds, then `delivery_delayed` beside them (SES's DeliveryDelay): shown in a message's
 * detail, never posted to webhooks (their events are SPEC's kinds only, webhooks/webhook-service.ts).
 */
export type MessageEventType = 'delivered' | 'bounced' | 'complained' | 'suppressed' | 'failed' | 'delivery_delayed' | 'opened' | 'clicked';

/** The internal event path's record: one row per event, with the JSON body a webhook receiver gets. */
export interface MessageEventsTable {
  id: string;
  workspace_id: string;
  message_id: string;
  type: MessageEventType;
  recipient: string;
  payload: string;
  created_at: string;
}

/** An inbound report (bounce, delivery notification, complaint) already processed. */
export interface InboundReportsTable {
  /** SHA-256 of the report's bytes, hex. */
  id: string;
  /** The Mailroom message it was matched to, or null. */
  message_id: string | null;
  /** JSON of the parser's results, for an operator reading the table. */
  summary: string;
  /** JSON of what acting on it came to, with the reason for each result ignored; null for reports recorded before it was kept. */
  verdict: string | null;
  received_at: string;
}

/** A secret of the installation as a whole (the return-path key made when MAILROOM_SECRET_KEY is not set). */
export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: string;
}

/** Which process runs a background task (retention) until when (0021): taken over once it has expired. */
export interface MaintenanceLeasesTable {
  name: string;
  owner: string;
  expires_at: string;
}

/** How far a retention pass (`content`) has walked the messages, in id order (0024). */
export interface RetentionMarksTable {
  name: string;
  /** The last message id the pass has passed; '' before the first. */
  after_id: string;
}

/** A message the content pass passed while its job was still pending: expired once the job is done (0024). */
export interface RetentionHeldTable {
  message_id: string;
}
