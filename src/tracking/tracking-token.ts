import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** What a tracked address stands for: a message, one of its recipients, and a link (0: the open pixel). */
export interface TrackedTarget {
  /** `msg_…`. */
  messageId: string;
  /** The recipient's place among the message's To, Cc and Bcc recipients (lib/message-recipients.ts). */
  recipient: number;
  /** The link's number, from 1 in document order (html-rewriter.ts); 0 for the open pixel. */
  link: number;
}

const INFO = 'mailroom tracking key v1';
const TAG_BYTES = 12;
const MESSAGE_PREFIX = 'msg_';
// A message id's ULID (lower-case Crockford base 32), the recipient and the link in base 36, the tag in base64url.
const TOKEN = /^([0-9a-hjkmnp-tv-z]{26})\.([0-9a-z]{1,2})\.([0-9a-z]{1,5})\.([A-Za-z0-9_-]{16})$/;

/**
 * The key tracked addresses are signed with: derived (HKDF-SHA256) from the
 * installation's return-path key, which every process already shares
 * (inbound/return-path-key.ts), under a purpose of its own, so that neither
 * signature can stand in for the other and no further secret needs keeping.
 */
export function deriveTrackingKey(returnPathKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', returnPathKey, Buffer.alloc(0), INFO, 32));
}

const tagOf = (key: Buffer, body: string) => createHmac('sha256', key).update(body).digest().subarray(0, TAG_BYTES);

/**
 * The token of a tracked address: `<ulid>.<recipient>.<link>.<tag>`, about 50
 * URL-safe characters. It names its target and nothing more (never the URL,
 * which is read from the stored message); the 96-bit HMAC tag makes it
 * unforgeable, and it covers the kind of address (`o` open, `c` click), so a
 * pixel's token is no link's.
 */
export function trackingToken(key: Buffer, kind: 'o' | 'c', target: TrackedTarget): string {
  const body = `${target.messageId.slice(MESSAGE_PREFIX.length)}.${target.recipient.toString(36)}.${target.link.toString(36)}`;
  return `${body}.${tagOf(key, `${kind}:${body}`).toString('base64url')}`;
}

/** The target a token stands for, or null for a token that is malformed or not signed with `key` (compared in constant time). */
export function readTrackingToken(key: Buffer, kind: 'o' | 'c', token: string): TrackedTarget | null {
  const match = TOKEN.exec(token);
  if (!match) return null;
  const [, ulid, recipient, link, tag] = match as unknown as [string, string, string, string, string];
  const given = Buffer.from(tag, 'base64url');
  const expected = tagOf(key, `${kind}:${ulid}.${recipient}.${link}`);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const target = { messageId: MESSAGE_PREFIX + ulid, recipient: parseInt(recipient, 36), link: parseInt(link, 36) };
  // The pixel is link 0 and only the pixel: anything else is not a token Mailroom made.
  if ((kind === 'o') !== (target.link === 0)) return null;
  return target;
}
