import { failed, succeeded, type Result } from './result.js';
import type { WebhookEvent } from './types.js';

/**
 * Standard Webhooks verification (https://www.standardwebhooks.com), as
 * Mailroom signs (DESIGN.md §2): `webhook-signature` holds one or more
 * space-separated `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`,
 * keyed with the base64-decoded part of the secret after `whsec_`. WebCrypto
 * only (globalThis.crypto.subtle), so it runs in Node 20+, browsers and edge
 * runtimes alike, and is therefore async.
 */

const SECRET_PREFIX = 'whsec_';
/** Signatures older or newer than this are refused, so a captured request cannot be replayed later. */
const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, either way; default 300 s. */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch; default Date.now. */
  now?: () => number;
}

export type WebhookVerificationErrorName = 'missing_headers' | 'invalid_secret' | 'timestamp_out_of_range' | 'invalid_signature' | 'invalid_payload';

export interface WebhookVerificationError {
  name: WebhookVerificationErrorName;
  message: string;
}

const refuse = (name: WebhookVerificationErrorName, message: string) => failed<WebhookVerificationError>({ name, message });

/**
 * Checks a webhook request Mailroom sent and answers its event. `body` is the
 * raw body as it arrived (a string or its bytes), before any JSON parsing;
 * `headers` a fetch `Headers` or Node's `req.headers`; `secret` the endpoint's
 * `whsec_…` secret.
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): Promise<Result<WebhookEvent, WebhookVerificationError>> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) return refuse('missing_headers', 'webhook-id, webhook-timestamp and webhook-signature are required');

  const key = secretKey(secret);
  if (!key) return refuse('invalid_secret', 'The secret must be whsec_ followed by base64');

  const seconds = /^\d+$/.test(timestamp) ? Number(timestamp) : NaN;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  if (!Number.isSafeInteger(seconds) || Math.abs(nowSeconds - seconds) > tolerance) {
    return refuse('timestamp_out_of_range', `webhook-timestamp must be within ${tolerance} seconds of now`);
  }

  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const expected = await hmacSha256(key, concat(new TextEncoder().encode(`${id}.${timestamp}.`), bytes));
  const matched = signatures
    .split(' ')
    .map((candidate) => (candidate.startsWith('v1,') ? fromBase64(candidate.slice(3)) : null))
    .some((mac) => mac !== null && constantTimeEqual(mac, expected));
  if (!matched) return refuse('invalid_signature', 'No signature in webhook-signature matches the body and the secret');

  try {
    return succeeded(JSON.parse(new TextDecoder().decode(bytes)) as WebhookEvent);
  } catch {
    return refuse('invalid_payload', 'The signed body is not JSON');
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const found = Object.keys(record).find((key) => key.toLowerCase() === name);
  const value = found === undefined ? undefined : record[found];
  return Array.isArray(value) ? value.join(' ') : value;
}

/** The HMAC key a secret stands for; the `whsec_` prefix may be left out, as the Standard Webhooks libraries allow. */
function secretKey(secret: string): Uint8Array | null {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return null;
  return fromBase64(encoded);
}

async function hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const subtle = globalThis.crypto.subtle;
  const cryptoKey = await subtle.importKey('raw', key as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', cryptoKey, data as BufferSource));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}

function fromBase64(encoded: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Compares every byte whatever the first difference, so the time taken tells nothing about the expected MAC. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a[index]! ^ b[index]!;
  return difference === 0;
}
