import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the receiver
 * recomputes `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed
 * with the base64-decoded part of the `whsec_…` secret, and compares. Any
 * Standard Webhooks library (the `standardwebhooks` npm package, Svix's) can
 * verify what these functions produce.
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** 256 bits of key material: the secret is `whsec_` + 44 base64 characters. */
const SECRET_BYTES = 32;

/** The headers of one webhook request. `x-service-signature` is SPEC.md §6.3's name for the same signature. */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'x-service-signature': string;
  'content-type': 'application/json';
}

/** A fresh signing secret, `whsec_<base64 of 32 random bytes>`. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/**
 * The HMAC key a secret stands for: the base64 after `whsec_` (the prefix may
 * be left out, as the Standard Webhooks libraries allow). The error never
 * contains the secret.
 */
export function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  if (encoded.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new TypeError('A webhook secret must be whsec_ followed by base64');
  }
  return Buffer.from(encoded, 'base64');
}

/** `v1,<base64 HMAC-SHA256 of "{id}.{timestampSeconds}.{body}">`: the value of `webhook-signature`. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  if (!Number.isSafeInteger(timestampSeconds)) throw new TypeError('timestampSeconds must be an integer number of seconds');
  const mac = createHmac('sha256', webhookSecretKey(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/**
 * Every header of a webhook request whose body is `body`, sent as is. `id`
 * is the delivery's id, the same on every retry, so receivers can deduplicate;
 * `timestampSeconds` is the time of this attempt (receivers refuse old ones).
 */
export function webhookHeaders(secret: string, id: string, timestampSeconds: number, body: string): WebhookHeaders {
  const signature = signWebhook(secret, id, timestampSeconds, body);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signature,
    'x-service-signature': signature,
    'content-type': 'application/json',
  };
}
