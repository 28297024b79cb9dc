export { Mailroom } from './client.js';
export { DEFAULT_BASE_URL, type MailroomOptions } from './transport.js';
export { backoffDelayMs, DEFAULT_MAX_RETRIES } from './backoff.js';
export { MailroomRequestError, type MailroomError, type MailroomErrorName, type Result } from './result.js';
export { ListRequest, type Page } from './list.js';
export type { SendOptions } from './resources/emails.js';
export { verifyWebhook, type VerifyOptions, type WebhookHeaders, type WebhookVerificationError, type WebhookVerificationErrorName } from './webhook-verification.js';
export type * from './types.js';
