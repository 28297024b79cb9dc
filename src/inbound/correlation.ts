import { headerBlock, type MimeMessage } from './mime-message.js';
import { returnedSection } from './mta-formats.js';
import { firstAddress, isAtToken } from './smtp-text.js';

/**
 * What ties an inbound report to the message it is about. The VERP return
 * path (`bounce+<message id>@mr-bounces.<domain>`) comes first, but it is the
 * SMTP envelope's, so the receiver has it, not the parser; the parser offers
 * the DSN envelope id (Mailroom sends its message id as ENVID) and the
 * original `Message-ID` found in the returned message or headers.
 */

/** A `Message-ID:` line quoted in text, its value what follows the colon (judged by messageIdToken). */
const MESSAGE_ID_LINES = /^[ \t>]*Message-ID[ \t]*:(.*)$/gim;
const MAILROOM_ID_HEADERS = ['x-mailroom-id', 'x-mailroom-message-id'];

/**
 * The Mailroom message id a return path carries (`bounce+msg_01….2.fr4.tag@mr-bounces.example.com`
 * → `msg_01…`; return-path.ts signs the rest), or null. Only for finding the message a report is
 * about: what a report may act on is decided by the signature.
 */
export function messageIdFromReturnPath(address: string): string | null {
  // The id's run is taken whole (a lookahead and its back reference: no backtracking into it), so an
  // address without an `@` is read once, not once for each length of the run.
  const match = /^bounce\+(?=([^@.\s]+))\1[^@\s]*@/i.exec(address.trim().replace(/^<|>$/g, ''));
  return match ? match[1]! : null;
}

/** A Message-ID value in its angle brackets (`<a@b>`); a bare `a@b`, as some reporters write it, gets them. */
export function normalizeMessageId(value: string | null | undefined): string | null {
  if (!value) return null;
  const bracketed = /<[^<>\s]+>/.exec(value);
  if (bracketed) return bracketed[0];
  const bare = value.trim();
  return isAtToken(bare) ? `<${bare}>` : null;
}

/** The value of a quoted `Message-ID:` line when it is one id (`<x>` or `a@b`) between spaces or tabs, else null. */
function messageIdToken(value: string): string | null {
  const token = value.replace(/^[ \t]+/, '').replace(/(?<![ \t])[ \t]+$/, '');
  if (token.length > 2 && token.startsWith('<') && token.endsWith('>') && !/[<>\s]/.test(token.slice(1, -1))) return token;
  return isAtToken(token) ? token : null;
}

/** The first `Message-ID:` line of the text that quotes one id, its value. */
function quotedMessageId(text: string): string | undefined {
  for (const [, value] of text.matchAll(MESSAGE_ID_LINES)) {
    const token = messageIdToken(value!);
    if (token) return token;
  }
  return undefined;
}

/** The original message's Message-ID, from the returned message or headers, or the text that quotes them. */
export function originalMessageIdOf(message: MimeMessage, fromReport: string | null): string | null {
  if (fromReport) return normalizeMessageId(fromReport);
  for (const part of [...message.returned, ...message.attachedText]) {
    const id = normalizeMessageId(headerBlock(part).get('message-id')?.[0]) ?? normalizeMessageId(quotedMessageId(part));
    if (id) return id;
  }
  const quoted = quotedMessageId(returnedSection(message.text)) ?? quotedMessageId(message.text);
  return normalizeMessageId(quoted) ?? normalizeMessageId(message.header('in-reply-to'));
}

/**
 * The envelope id: the DSN's Original-Envelope-Id; else a Mailroom message id
 * the report carries, in an X-Mailroom-Id header of the returned headers or
 * in the VERP return path it quotes (the DSN's `X-Postfix-Sender`, the ARF
 * `Original-Mail-From`, the returned message's `Return-Path`).
 */
export function envelopeIdOf(message: MimeMessage, fromReport: string | null, reportedSender: string | null): string | null {
  if (fromReport) return fromReport;
  const returnedText = returnedSection(message.text);
  for (const part of [...message.returned, ...message.attachedText]) {
    const headers = headerBlock(part);
    for (const name of MAILROOM_ID_HEADERS) {
      const value = headers.get(name)?.[0]?.trim();
      if (value) return value;
    }
  }
  for (const name of MAILROOM_ID_HEADERS) {
    const quoted = new RegExp(`^[ \\t>]*${name}[ \\t]*:[ \\t]*(\\S+)`, 'im').exec(returnedText);
    if (quoted) return quoted[1]!;
  }
  for (const address of returnPathsIn(message, reportedSender)) {
    const id = messageIdFromReturnPath(address);
    if (id) return id;
  }
  return null;
}

/**
 * The envelope senders a report quotes that are Mailroom return paths, in the
 * order they are trusted to name the original's: the DSN's own (Postfix's
 * X-Postfix-Sender), the ARF Original-Mail-From, the returned message's
 * Return-Path, a Return-Path quoted in the text. A report sent to the
 * complaint address is tied to a recipient by one of these.
 */
export function returnPathsIn(message: MimeMessage, reportedSender: string | null): string[] {
  const senders = [
    reportedSender,
    ...message.feedbackReports.flatMap((report) => headerBlock(report).get('original-mail-from') ?? []),
    ...message.returned.flatMap((part) => headerBlock(part).get('return-path') ?? []),
    /^[ \t>]*Return-Path[ \t]*:[ \t]*(\S+)/im.exec(returnedSection(message.text))?.[1],
  ];
  const found: string[] = [];
  for (const sender of senders) {
    const address = sender ? firstAddress(sender) : null;
    if (address && messageIdFromReturnPath(address) && !found.includes(address)) found.push(address);
  }
  return found;
}
