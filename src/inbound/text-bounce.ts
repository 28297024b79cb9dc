import { ERROR_LINE, RECIPIENT_LIST_INTRO } from './mta-formats.js';
import { ADDRESS_SOURCE, collapse, findCommand, findStatusCode } from './smtp-text.js';

/**
 * Reads the recipients of a plain-text bounce and what was said about each.
 *
 * Nearly every MTA writes its report the same way, whatever the wording: a
 * line naming a failed recipient (alone, in angle brackets, quoted, after a
 * bullet, ">>>", a reply code or "Recipient:", or in a sentence such as
 * "Could not be delivered to: <a@b>"), followed by the lines about it, up to
 * a blank line or the next recipient:
 *
 *     <kijitora@example.org>:                    (qmail, Yahoo)
 *     192.0.2.25 does not like recipient.
 *     Remote host said: 550 5.1.1 … User unknown
 *
 *       kijitora@example.org                     (Exim)
 *         SMTP error from remote mail server after RCPT TO:<…>:
 *         host mx.example.org [192.0.2.1]: 550 5.1.1 … User unknown
 */

export interface TextBlock {
  recipient: string;
  /** The lines about the recipient chosen as its diagnostic (the first block that quotes an error). */
  lines: string[];
  /** Every line about the recipient, wherever written (for the command it answered). */
  context: string[];
}

// \u2022: a bullet (•).
const DECORATION = /^(?:[*\u2022>-]+\s*|<<<\s*|>>>\s*|\d{3}[ -]\s*|[245]\.\d{1,3}\.\d{1,3}\s+|recipient(?:\s+address)?\s*:\s*|rcpt to\s*:\s*|(?:final|original)-recipient\s*:\s*(?:rfc822\s*;)?\s*)/i;
// The quotes before the address are taken whole (a lookahead and its back reference): `'` is also a
// local-part character, and each way of splitting a run of them would be tried again.
const LEADING_ADDRESS = new RegExp(`^(?=(["'<(]*))\\1(${ADDRESS_SOURCE})[>"')]*`, 'i');
// No two `\s*` (or `\s+`) side by side: each way of splitting a long space between them would be tried.
const ADDRESS_IN_SENTENCE = new RegExp(
  `(?:deliver(?:ed|ing|y)?\\s+(?:of\\s+)?(?:your\\s+|the\\s+)?(?:(?:message|mail|e-?mail)\\s*)?to|undeliverable\\s+to|returned permanent errors|could not be reached|failed to)\\s*(?::\\s*)?<?(${ADDRESS_SOURCE})`,
  'i',
);

/** The recipient a line names as failed, and what follows the address on it; null for any other line. */
export function recipientLine(line: string): { address: string; rest: string } | null {
  let body = line.trim();
  for (let i = 0; i < 3; i++) {
    const stripped = body.replace(DECORATION, '');
    if (stripped === body) break;
    body = stripped;
  }
  const leading = LEADING_ADDRESS.exec(body);
  if (leading) {
    const address = leading[2]!.toLowerCase().replace(/(?<!\.)\.+$/, '');
    const after = body
      .slice(leading[0].length)
      .replace(/^\s*<mailto:[^>]*>/i, '')
      .replace(/^[\s:.,]+/, '');
    // The address written again in brackets ("ada@example.net <ada@example.net>") is not what is said of it.
    const repeated = `<${address}>`;
    const rest = after.toLowerCase().startsWith(repeated) ? after.slice(repeated.length).trimStart() : after;
    return { address, rest };
  }
  const inSentence = ADDRESS_IN_SENTENCE.exec(line);
  if (inSentence) {
    const at = inSentence.index + inSentence[0].length;
    return { address: inSentence[1]!.toLowerCase().replace(/(?<!\.)\.+$/, ''), rest: line.slice(at).replace(/^[>\s:.,]+/, '') };
  }
  return null;
}

interface OpenBlock {
  recipient: string;
  indent: number;
  lines: string[];
  context: string[];
}

/** The recipient blocks of a report section, one per recipient, in order of first mention. */
export function recipientBlocks(report: string): TextBlock[] {
  const lines = report.split('\n');
  const intro = lines.findIndex((line) => RECIPIENT_LIST_INTRO.test(line));
  const blocks = new Map<string, TextBlock>();
  let current = null as OpenBlock | null;

  // Files the block under its recipient (a recipient named twice keeps the first block that quotes an error).
  const close = (block: OpenBlock | null): null => {
    if (!block) return null;
    const known = blocks.get(block.recipient);
    if (!known) blocks.set(block.recipient, { recipient: block.recipient, lines: block.lines, context: block.context });
    else {
      known.context.push(...block.context);
      if (!quotesError(known.lines) && quotesError(block.lines)) known.lines = block.lines;
    }
    return null;
  };

  for (const line of lines.slice(Math.max(intro, 0))) {
    const named = recipientLine(line);
    const indent = line.length - line.trimStart().length;
    // Another address on a line indented deeper than the recipient's is part of what is said about it.
    if (named && named.address !== current?.recipient && (!current || indent <= current.indent)) {
      close(current);
      current = { recipient: named.address, indent, lines: named.rest ? [named.rest] : [], context: [line.trim()] };
      continue;
    }
    if (!current) continue;
    if (line.trim() === '') {
      const last = current.lines[current.lines.length - 1];
      if (current.lines.length && !last?.trim().endsWith(':')) current = close(current);
      continue;
    }
    // Rules of '=' or '-' and headings such as "----- Transcript of session follows -----" carry nothing.
    if (/^[\s=*_#~-]+$/.test(line) || /^\s*---.*---\s*$/.test(line)) continue;
    current.lines.push(line.trim());
    current.context.push(line.trim());
  }
  close(current);
  return [...blocks.values()];
}

function quotesError(lines: string[]): boolean {
  return lines.some((line) => /\b[45]\d\d\b/.test(line) || findStatusCode(line) !== null);
}

/** Lines of the report that carry an error, wherever they are (for reports that give it apart from the recipient). */
export function errorLines(report: string): string[] {
  const lines = report.split('\n');
  const found: string[] = [];
  lines.forEach((line, i) => {
    if (!ERROR_LINE.test(line)) return;
    found.push(line.trim());
    // "Reason:", "server message" and the like often put the error on the next line.
    const next = lines[i + 1]?.trim();
    if (next && /[:-]\s*$|server message|following reason/i.test(line)) found.push(next);
  });
  return [...new Set(found.filter(Boolean))];
}

/** The text after the recipient-list introduction (or all of it), for a report that names no recipient. */
export function textAfterIntro(report: string): string {
  const lines = report.split('\n');
  const intros = lines.flatMap((line, i) => (RECIPIENT_LIST_INTRO.test(line) ? [i] : []));
  const after = intros.length ? lines.slice(intros[intros.length - 1]! + 1) : lines;
  return collapse((after.join('\n').trim() ? after : lines).join('\n'));
}

export interface BlockReading {
  diagnostic: string | null;
  /** What the block says besides, when the diagnostic came from elsewhere in the report. */
  context: string | null;
  status: string | null;
  command: ReturnType<typeof findCommand>;
}

/**
 * Diagnostic, status and command of one recipient block. A block that quotes
 * no error gives way to the report's error lines, when there are some (a
 * report that states the error apart from the list of recipients).
 */
export function readBlock(block: TextBlock, fallbackErrors: string[]): BlockReading {
  const own = collapse(block.lines.join('\n'));
  const elsewhere = !quotesError(block.lines) ? fallbackErrors.filter((line) => !block.lines.includes(line)) : [];
  const diagnostic = elsewhere.length ? collapse(elsewhere.join('\n')) : own;
  const context = block.context.join('\n');
  return {
    diagnostic: diagnostic || null,
    context: elsewhere.length ? own || null : null,
    status: findStatusCode(diagnostic) ?? findStatusCode(context),
    command: findCommand(context) ?? findCommand(diagnostic),
  };
}
