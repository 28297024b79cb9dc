/**
 * The API's request and response shapes, by the names the SDK uses: each is
 * read from the types generated from the OpenAPI document (src/openapi.ts,
 * `npm run sdk:generate`), so they follow the route schemas and cannot drift
 * from them. Only the webhook payload is written here: it is posted by
 * Mailroom, not answered by a route, and the document does not describe it.
 */
import type { operations } from './openapi.js';

type Operation = keyof operations;
type AnswerOf<O extends Operation, S extends number> = S extends keyof operations[O]['responses'] ? operations[O]['responses'][S] : never;
/** The envelope's `data` in an operation's answer with status `S`. */
type Data<O extends Operation, S extends number = 200> = AnswerOf<O, S> extends { content: { 'application/json': { data: infer D } } } ? D : never;
/** An operation's JSON request body. */
type Body<O extends Operation> = operations[O] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
/** An operation's query parameters, each optional: those the document marks required have defaults. */
type Query<O extends Operation> = Partial<NonNullable<operations[O]['parameters']['query']>>;

/** POST /v1/send's body (SPEC.md §2.1 and the README's send fields). */
export type SendEmailRequest = Body<'sendEmail'>;
export type Attachment = NonNullable<SendEmailRequest['attachments']>[number];
export type SendEmailResult = Data<'sendEmail'>;
export type SendStatus = SendEmailResult['status'];

/** GET /v1/messages/{id}. */
export type Email = Data<'getMessage'>;
export type EmailContent = Data<'getMessageContent'>;
export type CanceledEmail = Data<'cancelMessage'>;

export type LogEntry = Data<'listLogs'>[number];
export type LogType = LogEntry['type'];
export type LogStatus = LogEntry['status'];
/** GET /v1/send/logs's query. */
export type ListLogsParams = Query<'listLogs'>;

export type Stats = Data<'getStats'>;
export type StatsParams = Query<'getStats'>;
export type StatsBucket = Data<'getStatsTimeseries'>[number];
export type TimeseriesParams = Query<'getStatsTimeseries'>;
export type Engagement = Data<'getEngagementStats'>;
export type EngagementBucket = Data<'getEngagementTimeseries'>[number];

export type Domain = Data<'listDomains'>[number];
export type DomainDetail = Data<'createDomain', 201>;
export type DnsRecord = DomainDetail['records'][number];
export type Deleted = Data<'deleteDomain'>;

export type ApiKey = Data<'listApiKeys'>[number];
export type ApiKeyPermission = ApiKey['permission'];
export type CreateApiKeyRequest = Body<'createApiKey'>;
export type CreatedApiKey = Data<'createApiKey', 201>;

export type Webhook = Data<'listWebhooks'>[number];
export type WebhookEventType = Webhook['events'][number];
export type CreateWebhookRequest = Body<'createWebhook'>;
export type CreatedWebhook = Data<'createWebhook', 201>;
export type WebhookDetail = Data<'getWebhook'>;
export type WebhookDelivery = Data<'retryWebhookDelivery'>;
export type RotatedWebhookSecret = Data<'rotateWebhookSecret'>;

export type Suppression = Data<'getSuppression'>;
export type SuppressionReason = Suppression['reason'];
export type ListSuppressionsParams = Query<'listSuppressions'>;
export type AddSuppressionRequest = Body<'createSuppression'>;
export type DeletedSuppression = Data<'deleteSuppression'>;

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
