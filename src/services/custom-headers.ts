import { ValidationError } from '../errors.js';

export const MAX_CUSTOM_HEADERS = 50;
/** RFC 5322's line limit: a longer name could not stand on a line of its own. */
const MAX_NAME_LENGTH = 998;
/** A generous bound on one value: headers are metadata, and a huge one is a body in disguise. */
const MAX_VALUE_LENGTH = 2000;

// RFC 5322 §3.6.8: field-name = 1*ftext, ftext = %d33-57 / %d59-126 (printable ASCII but the colon).
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;
// CR and LF would end the header and start another; other control characters are no better. Tab is folding whitespace.
const VALUE_CONTROL_CHARACTERS = /[\u0000-\u0008\u000a-\u001f\u007f]/;

// Headers Mailroom writes itself (addressing, identity, structure, signature, trace): a caller's copy would
// contradict or duplicate Mailroom's, or break the DKIM signature. Compared lower-case.
const OWNED = new Set([
  'from', 'to', 'cc', 'bcc', 'subject', 'date', 'message-id', 'reply-to', 'sender', 'return-path',
  'dkim-signature', 'mime-version', 'received', 'content-transfer-encoding', 'content-type',
]);
const OWNED_PREFIXES = ['content-', 'resent-'];

/** Whether Mailroom writes this header itself (name compared case-insensitively), so a caller may not give it. */
export const isMailroomHeader = (name: string) => {
  const lower = name.toLowerCase();
  return OWNED.has(lower) || OWNED_PREFIXES.some((prefix) => lower.startsWith(prefix));
};

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
    if (isMailroomHeader(lower)) throw new ValidationError(`headers: ${name} is set by Mailroom and cannot be given`);
    if (seen.has(lower)) throw new ValidationError(headerGivenTwice(name));
    seen.add(lower);
    if (VALUE_CONTROL_CHARACTERS.test(value)) throw new ValidationError(`headers: ${name} must not contain line breaks or control characters`);
    if (value.length > MAX_VALUE_LENGTH) throw new ValidationError(`headers: ${name} must be at most ${MAX_VALUE_LENGTH} characters long`);
  }
  return entries;
}
