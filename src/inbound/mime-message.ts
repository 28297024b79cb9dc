import type { Attachment, HeaderValue, ParsedMail, SimpleParserOptions, StructuredHeader } from 'mailparser';
import { htmlText } from './html-text.js';
import { checkAddressHeaders, reportPortion } from './read-limits.js';

/**
 * An inbound message taken apart by mailparser (Nodemailer's parser) into
 * what the report readers need: the top-level headers as written, the
 * human-readable text, and the machine-readable parts of a report, kept
 * apart by content type.
 */
export interface MimeMessage {
  /** The first top-level header of that name, unfolded, as written (not decoded); null if absent. */
  header(name: string): string | null;
  /** Every top-level header of that name, unfolded. */
  headers(name: string): string[];
  /** The decoded Subject ('' if none). */
  subject: string;
  /** The From address, lower-cased, or null. */
  fromAddress: string | null;
  /** The From display name ('' if none). */
  fromName: string;
  /** The human-readable text: the text/plain parts (HTML turned into text when there is no plain text), LF line ends. */
  text: string;
  /** Contents of `message/delivery-status` (and RFC 6533 `message/global-delivery-status`) parts. */
  deliveryStatus: string[];
  /** Contents of `message/feedback-report` parts (ARF). */
  feedbackReports: string[];
  /** The returned message or its headers: `message/rfc822`, `message/global`, `text/rfc822-headers`, `message/partial`. */
  returned: string[];
  /** Other text attachments (some MTAs attach the original headers as text/plain; a forwarded SES notification may be JSON). */
  attachedText: string[];
  /** The top-level Content-Type (`multipart/report`, `text/plain`…), lower-cased. */
  contentType: string;
  /** The value of the multipart/report's `report-type` parameter, lower-cased, or null. */
  reportType: string | null;
}

const DELIVERY_STATUS = new Set(['message/delivery-status', 'message/global-delivery-status']);
const FEEDBACK_REPORT = new Set(['message/feedback-report']);
const RETURNED = new Set(['message/rfc822', 'message/global', 'text/rfc822-headers', 'message/rfc822-headers', 'message/global-headers', 'message/partial']);

// mailparser's own options, beyond those the @types package declares: keep
// message/delivery-status as an attachment instead of merging it into the text,
// and keep an attached message/rfc822 whole instead of parsing into it. HTML is
// made text here (html-text.ts), not by mailparser.
const PARSER_OPTIONS = { keepDeliveryStatus: true, ignoreEmbedded: true, skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true, skipHtmlToText: true } as SimpleParserOptions;

/** Takes apart the part of a message the parser reads (read-limits.ts). */
export async function readMimeMessage(whole: Buffer): Promise<MimeMessage> {
  const raw = reportPortion(whole);
  checkAddressHeaders(raw);
  // Loaded with the first report: mailparser and its charset tables are megabytes a start need not hold.
  const { simpleParser } = await import('mailparser');
  const parsed: ParsedMail = await simpleParser(raw, PARSER_OPTIONS);
  const headerMap = new Map<string, string[]>();
  for (const { key, line } of parsed.headerLines) {
    const colon = line.indexOf(':');
    const value = unfold(colon >= 0 ? line.slice(colon + 1) : '').trim();
    const list = headerMap.get(key.toLowerCase()) ?? [];
    list.push(value);
    headerMap.set(key.toLowerCase(), list);
  }

  const deliveryStatus: string[] = [];
  const feedbackReports: string[] = [];
  const returned: string[] = [];
  const attachedText: string[] = [];
  for (const attachment of parsed.attachments) {
    const type = attachment.contentType.toLowerCase();
    const content = contentOf(attachment);
    if (DELIVERY_STATUS.has(type)) deliveryStatus.push(content);
    else if (FEEDBACK_REPORT.has(type)) feedbackReports.push(content);
    else if (RETURNED.has(type)) returned.push(content);
    else if (type.startsWith('text/') || type === 'application/json') attachedText.push(content);
  }

  let text = normalizeNewlines(parsed.text || (typeof parsed.html === 'string' ? htmlText(parsed.html) : ''));
  // A message whose MIME structure mailparser cannot follow (a broken boundary
  // parameter, say) yields no text: read the body as it is.
  if (!text.trim() && !deliveryStatus.length && !feedbackReports.length) text = rawBody(raw);

  const structured = structuredHeader(parsed.headers.get('content-type'));
  const from = parsed.from?.value[0];

  return {
    header: (name) => headerMap.get(name.toLowerCase())?.[0] ?? null,
    headers: (name) => headerMap.get(name.toLowerCase()) ?? [],
    subject: parsed.subject ?? '',
    fromAddress: from?.address ? from.address.toLowerCase() : null,
    fromName: from?.name ?? '',
    text,
    deliveryStatus,
    feedbackReports,
    returned,
    attachedText,
    contentType: (structured?.value ?? 'text/plain').toLowerCase(),
    reportType: structured?.params['report-type']?.toLowerCase() ?? null,
  };
}

function structuredHeader(value: HeaderValue | undefined): StructuredHeader | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Date) return null;
  return 'params' in value && typeof value.value === 'string' ? value : null;
}

function contentOf(attachment: Attachment): string {
  return normalizeNewlines(Buffer.isBuffer(attachment.content) ? attachment.content.toString('utf8') : String(attachment.content ?? ''));
}

export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** Joins folded header lines (RFC 5322 §2.2.3). */
export function unfold(value: string): string {
  return value.replace(/\r?\n(?=[ \t])/g, '');
}

/** Everything after the header block, as UTF-8 text. */
function rawBody(raw: Buffer): string {
  const text = normalizeNewlines(raw.toString('utf8'));
  const end = text.indexOf('\n\n');
  return end >= 0 ? text.slice(end + 2) : '';
}

/**
 * The header block at the top of a returned message (or of a
 * text/rfc822-headers part), as a map from lower-cased names to unfolded
 * values. Stops at the first blank line.
 */
export function headerBlock(text: string): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  const lines = normalizeNewlines(text).replace(/^\n+/, '').split('\n');
  let current: { name: string; value: string } | null = null;
  const flush = () => {
    if (!current) return;
    const list = fields.get(current.name) ?? [];
    list.push(current.value.trim());
    fields.set(current.name, list);
    current = null;
  };
  for (const line of lines) {
    if (line.trim() === '') break;
    if (/^[ \t]/.test(line) && current) {
      (current as { value: string }).value += ' ' + line.trim();
      continue;
    }
    const match = /^([!-9;-~]+)[ \t]*:(.*)$/.exec(line);
    if (!match) {
      flush();
      continue;
    }
    flush();
    current = { name: match[1]!.toLowerCase(), value: match[2]! };
  }
  flush();
  return fields;
}
