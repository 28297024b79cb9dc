import type { SmtpCommand } from './kinds.js';

/**
 * Small readers of the text MTAs write about SMTP: addresses, enhanced status
 * codes (RFC 3463), reply codes (RFC 5321) and the command a reply answered.
 */

const ATOM_CHARACTER = "[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
/** An addr-spec as bounces write them (no quoted local parts, no address literals). */
export const ADDRESS_SOURCE = `${ATOM_CHARACTER}+@${LABEL}(?:\\.${LABEL})+`;
/**
 * ADDRESS_SOURCE searched for: tried only where a run of local-part characters starts. Tried inside the
 * run as well, every start would read to the run's end (quadratic in a long run with no `@`), and the
 * first match is the same, since a match from inside a run is one from its start too.
 */
const ADDRESS_ANYWHERE = `(?<!${ATOM_CHARACTER})${ADDRESS_SOURCE}`;

/** Every address in the text, lower-cased, in order. */
export function addressesIn(text: string): string[] {
  return [...text.matchAll(new RegExp(ADDRESS_ANYWHERE, 'g'))].map((m) => trimAddress(m[0]));
}

/** The first address in the text, lower-cased, or null. */
export function firstAddress(text: string): string | null {
  const match = new RegExp(ADDRESS_ANYWHERE).exec(text);
  return match ? trimAddress(match[0]) : null;
}

const NOT_IN_ADDRESS_TOKEN = /[<>\s]/;

/**
 * Whether the whole of `token` reads `[^<>\s]+@[^<>\s]+` (a message id, a loosely written address),
 * tested without that pattern's backtracking: quadratic in a run of `@`.
 */
export function isAtToken(token: string): boolean {
  return !NOT_IN_ADDRESS_TOKEN.test(token) && token.slice(1, -1).includes('@');
}

function trimAddress(address: string): string {
  return address.replace(/^[.'`]+|[.'`]+$/g, '').toLowerCase();
}

/** Whitespace runs (folded lines included) as single spaces, trimmed. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const STATUS_PATTERNS = [
  /\(?#\s?([245]\.\d{1,3}\.\d{1,3})\b/, // (#5.1.1), #5.1.0
  /\b[245]\d\d[ -]#?([245]\.\d{1,3}\.\d{1,3})\b/, // 550 5.1.1, 550-5.1.1
  /(?:^|[\s[(<:;'"=,-])([245]\.\d{1,3}\.\d{1,3})(?=$|[\s\]).>:;,'"])/, // a code standing alone
];

/**
 * The enhanced status code a text states, or null. A dotted number that is
 * part of an IPv4 address or a version is not one.
 */
export function findStatusCode(text: string | null | undefined): string | null {
  if (!text) return null;
  for (const pattern of STATUS_PATTERNS) {
    const global = new RegExp(pattern.source, 'g');
    for (const match of text.matchAll(global)) {
      const code = match[1]!;
      const end = match.index! + match[0].lastIndexOf(code) + code.length;
      const start = end - code.length;
      if (/^\.\d/.test(text.slice(end)) || /\d\.$/.test(text.slice(0, start))) continue; // 192.0.2.1
      if (validStatus(code)) return code;
    }
  }
  return null;
}

/** A syntactically valid RFC 3463 code: class 2, 4 or 5, subject 0–7. */
export function validStatus(code: string): boolean {
  const match = /^([245])\.(\d{1,3})\.(\d{1,3})$/.exec(code);
  return !!match && Number(match[2]) <= 7;
}

/** The status code at the start of a DSN `Status:` value (`5.0.0 (permanent failure)`). */
export function leadingStatus(value: string | null | undefined): string | null {
  const match = value ? /^\s*([245]\.\d{1,3}\.\d{1,3})/.exec(value) : null;
  return match && validStatus(match[1]!) ? match[1]! : null;
}

/** The SMTP reply code a text starts with or quotes (`550`, `421`), or null. */
export function findReplyCode(text: string | null | undefined): string | null {
  if (!text) return null;
  const match = /(?:^|[\s:;'"(\[>])([245][0-5]\d)(?=[ -]|$|:|\s)/.exec(text);
  return match ? match[1]! : null;
}

const COMMAND_PATTERNS: Array<[RegExp, SmtpCommand]> = [
  [/(?:\bin reply to|\bafter|\bresponse to|\brefused to accept your message \(|\bdid not like our|\bcommand:?|\bsmtp:|>>>)\s*(?:the\s+)?(?:end of\s+)?data\b/gi, 'DATA'],
  [/(?:\bin reply to|\bafter|\bresponse to|\bdid not like our|\bsmtp:|>>>|\[)\s*rcpt(?:[ _]to)?\b/gi, 'RCPT'],
  [/(?:\bin reply to|\bafter|\bresponse to|\bdid not like our|\bsmtp:|>>>|\[)\s*mail(?:[ _]from)?\b/gi, 'MAIL'],
  [/(?:\bin reply to|\bafter|\bresponse to|>>>)\s*(?:helo|ehlo)\b|\bwhile performing the (?:helo|ehlo) handshake/gi, 'HELO'],
  [/\bafter initial connection\b|\bwhile receiving the initial server greeting\b|\brefused to talk to me\b|\bat connection\b/gi, 'CONN'],
  [/\bdoes not like recipient\b/gi, 'RCPT'],
  [/\bsender was rejected\b|\bsender address rejected\b/gi, 'MAIL'],
  [/\bmy name was rejected\b/gi, 'HELO'],
  [/\bfailed after i sent the message\b/gi, 'DATA'],
  // Started at a run's first dash, and the white space holding a line break read once (not split between
  // two `\s*` around the `\n`): the same matches, without reading a long run again from each place in it.
  [/(?<!-)-+\s*smtp command(?=\s*\n)\s*(?:data)\b/gi, 'DATA'],
  [/(?<!-)-+\s*smtp command(?=\s*\n)\s*(?:rcpt)\b/gi, 'RCPT'],
  [/(?<!-)-+\s*smtp command(?=\s*\n)\s*(?:mail)\b/gi, 'MAIL'],
];

/**
 * The SMTP command a remote server's error answered, as the report tells it
 * ("in reply to RCPT TO command", "after MAIL FROM:", ">>> DATA", "[RCPT_TO]"):
 * the last one mentioned, since a transcript goes on until the failing one.
 */
export function findCommand(text: string | null | undefined): SmtpCommand | null {
  if (!text) return null;
  let best: { at: number; command: SmtpCommand } | null = null;
  for (const [pattern, command] of COMMAND_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      if (!best || match.index! > best.at) best = { at: match.index!, command };
    }
  }
  return best?.command ?? null;
}
