import { ValidationError } from '../lib/errors.js';

export const MAX_CUSTOM_HEADERS = 50;
/** RFC 5322's line limit: a longer name could not stand on a line of its own. */
const MAX_NAME_LENGTH = 998;
/** A generous bound on one value: headers are metadata, and a huge one is a body in disguise. */
const MAX_VALUE_LENGTH = 2000;

// RFC 5322 §3.6.8: field-name = 1*ftext, ftext = %d33-57 / %d59-126 (printable ASCII but the colon).
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;
// CR and LF would end the header and start another; other control characters are no better. Tab is folding whitespace.
const VALUE_CONTROL_CHARACTERS = /[\u0000-\u0008\u000a-\u001f\u007f]/;

// Headers Mailroom writes itself (addressing, identity, structure, signature): a caller's copy would
// contradict or duplicate Mailroom's, or break the DKIM signature. Compared lower-case.
const OWNED = new Set([
  'from', 'to', 'cc', 'bcc', 'subject', 'date', 'message-id', 'reply-to', 'sender', 'return-path',
  'dkim-signature', 'mime-version', 'content-transfer-encoding', 'content-type',
]);
const OWNED_PREFIXES = ['content-', 'resent-'];
// What the servers a message passes through write about it: its route (Received, Delivered-To, X-Original-To)
// and their verdicts (Authentication-Results, RFC 8601; Received-SPF, RFC 7208; the ARC set, RFC 8617). A
// sender's copy would forge a verdict or a hop that receivers, filters and people reading headers trust.
const TRACE = new Set(['authentication-results', 'delivered-to', 'x-original-to']);
const TRACE_PREFIXES = ['received', 'arc-'];
/** Mailroom's own names (the inbound reader takes X-Mailroom-Id in a returned message as its message id). */
const MAILROOM_PREFIX = 'x-mailroom-';

/**
 * Why a caller may not give the header `name` (compared case-insensitively), as the end of a sentence, or
 * undefined when it may. A message submitted by SMTP drops these headers rather than being refused
 * (submission/mail-to-send.ts): a client or a relay writes them by nature.
 */
export function reservedHeader(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (OWNED.has(lower) || OWNED_PREFIXES.some((prefix) => lower.startsWith(prefix))) return 'is set by Mailroom and cannot be given';
  if (TRACE.has(lower) || TRACE_PREFIXES.some((prefix) => lower.startsWith(prefix))) {
    return 'is a trace or authentication header, which only the servers a message passes through write, and cannot be given';
  }
  if (lower.startsWith(MAILROOM_PREFIX)) return 'is in the X-Mailroom- namespace, which is Mailroom\'s own, and cannot be given';
  return undefined;
}

/** The refusal of a header given twice; also said by the ways in that read headers from a message (submission/). */
export const headerGivenTwice = (name: string) => `headers: ${name} is given twice (header names are case-insensitive)`;

/** Checks the `headers` object of a send; returns [name, value] pairs in request order. */
export function parseCustomHeaders(input: Record<string, string> | null | undefined): [string, string][] {
  if (!input) return [];
  const entries = Object.entries(input);
  if (entries.length > MAX_CUSTOM_HEADERS) {
    throw new ValidationError(`headers must contain at most ${MAX_CUSTOM_HEADERS} headers (got ${entries.length})`);
  }
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (!FIELD_NAME.test(name) || name.length > MAX_NAME_LENGTH) {
      throw new ValidationError(`headers: ${JSON.stringify(name)} is not a valid header name (printable ASCII without spaces or colons)`);
    }
    const reserved = reservedHeader(name);
    if (reserved) throw new ValidationError(`headers: ${name} ${reserved}`);
    if (seen.has(lower)) throw new ValidationError(headerGivenTwice(name));
    seen.add(lower);
    if (VALUE_CONTROL_CHARACTERS.test(value)) throw new ValidationError(`headers: ${name} must not contain line breaks or control characters`);
    if (value.length > MAX_VALUE_LENGTH) throw new ValidationError(`headers: ${name} must be at most ${MAX_VALUE_LENGTH} characters long`);
  }
  return entries;
}
