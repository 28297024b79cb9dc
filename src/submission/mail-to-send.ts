import type { Attachment, EmailAddress, SimpleParserOptions } from 'mailparser';
import { detectExtension } from 'nodemailer/lib/mime-funcs';
import { ValidationError } from '../lib/errors.js';
import { ATTACHMENT_LIMIT, checkAttachments, MAX_ATTACHMENT_BYTES, megabytes, type AttachmentFieldName, headerGivenTwice, reservedHeader, parseSubjectField, type SendInput } from '../sending/index.js';
import { formatMailbox, normalizeAddress } from '../lib/email-address.js';
import { addressHeader } from './address-headers.js';
import { MessageTooBigError } from './replies.js';

/** The SMTP envelope of one submitted message. */
export interface SubmissionEnvelope {
  /** MAIL FROM ('' for the null sender). */
  mailFrom: string;
  /** RCPT TO, in the order given: who receives the message. */
  rcptTo: string[];
}

// No text derived from the HTML (Mailroom makes its own text part, as for an HTTP send without `text`),
// no HTML derived from text, and an attached message kept whole as an attachment.
const PARSER_OPTIONS = { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true } as SimpleParserOptions;

/**
 * A submitted message as the body of POST /v1/send, so it takes the one
 * acceptance path. The envelope decides who receives it: To and Cc keep the
 * header's addresses that are envelope recipients (others are not sent to,
 * so they are not listed either), and every other envelope recipient is a
 * Bcc. The sender is the From header (MAIL FROM only when there is none):
 * Mailroom writes its own envelope sender, a return path per recipient.
 * The fields the sender wrote pass the send rules here, refusals naming the
 * header or part (From, Subject, attachment 2's file name); the acceptance
 * service applies the same rules again to the whole.
 */
export async function sendInputFromMail(raw: Buffer, envelope: SubmissionEnvelope): Promise<SendInput> {
  // Loaded with the first message: mailparser and its charset tables are megabytes a start need not hold.
  const { simpleParser } = await import('mailparser');
  const parsed = await simpleParser(raw, PARSER_OPTIONS);

  const recipients = new Map<string, string>();
  for (const address of envelope.rcptTo) if (!recipients.has(normalizeAddress(address))) recipients.set(normalizeAddress(address), address);
  const named = new Set<string>();
  const inEnvelope = (mailboxes: EmailAddress[]) =>
    mailboxes
      .filter((mailbox) => {
        const key = normalizeAddress(mailbox.address!);
        if (!recipients.has(key) || named.has(key)) return false;
        named.add(key);
        return true;
      })
      .map(formatted);
  const lines = parsed.headerLines;
  const to = inEnvelope(addressHeader('To', lines, parsed.to));
  const cc = inEnvelope(addressHeader('Cc', lines, parsed.cc));
  const bcc = [...recipients].filter(([key]) => !named.has(key)).map(([, address]) => address);
  if (to.length === 0) {
    throw new ValidationError('To must name at least one of the envelope recipients (RCPT TO): a message is not sent to Bcc recipients alone');
  }

  const from = addressHeader('From', lines, parsed.from);
  if (from.length > 1) throw new ValidationError(`From must name one mailbox (got ${from.length})`);
  const fromEmail = from.length === 1 ? formatted(from[0]!) : envelope.mailFrom;
  if (!fromEmail) throw new ValidationError('from_email is required: the message has no From header and a null envelope sender');

  const replyTo = addressHeader('Reply-To', lines, parsed.replyTo).map(formatted);
  const html = typeof parsed.html === 'string' && parsed.html !== '' ? lf(parsed.html) : null;
  // With skipHtmlToText an HTML part yields '' in `text`: no text part was written.
  const text = parsed.text && parsed.text.trim() !== '' ? lf(parsed.text) : null;

  return {
    to,
    ...(cc.length > 0 ? { cc } : {}),
    ...(bcc.length > 0 ? { bcc } : {}),
    from_email: fromEmail,
    subject: parseSubjectField('Subject', parsed.subject ?? ''),
    html,
    text,
    ...(replyTo.length > 0 ? { reply_to: replyTo.length === 1 ? replyTo[0]! : replyTo } : {}),
    ...customHeaders(lines),
    ...attachmentsOf(parsed.attachments),
  };
}

/**
 * The headers a send may carry, values unfolded as written: every header but those a send may not give
 * (custom-headers.ts), which are dropped rather than refused. A mail client writes Date, Message-ID and
 * MIME-Version, and a relay submitting for others (Postfix's relayhost) brings the Received,
 * Authentication-Results and DKIM-Signature headers of the hops before it: they describe its earlier
 * transport, not the message, and refusing them would refuse every relayed message.
 */
function customHeaders(lines: readonly { key: string; line: string }[]): Pick<SendInput, 'headers'> {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const { line } of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const lower = name.toLowerCase();
    if (reservedHeader(name)) continue;
    // The send rules take each name once; a Record would keep the last silently.
    if (seen.has(lower)) throw new ValidationError(headerGivenTwice(name));
    seen.add(lower);
    headers[name] = line.slice(colon + 1).replace(/\r?\n(?=[ \t])/g, '').trim();
  }
  return seen.size > 0 ? { headers } : {};
}

/** An attachment's fields in a refusal, as the message has them: `attachment 2's file name`. */
const PART_PROPERTIES = { filename: 'file name', content_type: 'Content-Type', content_id: 'Content-ID', content: 'content' } as const;
const partField: AttachmentFieldName = (index, property) => `attachment ${index + 1}'s ${PART_PROPERTIES[property]}`;

/** Attachments as the send rules take them: base64 content, the part's type, and a content_id for inline (related) parts. */
function attachmentsOf(attachments: Attachment[]): Pick<SendInput, 'attachments'> {
  if (attachments.length === 0) return {};
  const bytes = attachments.reduce((sum, attachment) => sum + attachment.content.length, 0);
  // Refused here, as too big (552), rather than by the send rules as invalid: the size is what is wrong.
  if (bytes > MAX_ATTACHMENT_BYTES) throw new MessageTooBigError(`attachments must be at most ${ATTACHMENT_LIMIT} together (got ${megabytes(bytes)})`);
  const fields = attachments.map((attachment, index) => {
    const inline = attachment.cid !== undefined && attachment.cid !== '' && (attachment.related || attachment.contentDisposition === 'inline');
    return {
      filename: attachment.filename || `attachment-${index + 1}.${detectExtension(attachment.contentType)}`,
      content_type: attachment.contentType,
      ...(inline ? { content_id: attachment.cid! } : {}),
    };
  });
  // The content is checked empty: Mailroom encodes it itself, only the names and types are the sender's.
  checkAttachments(fields.map((field) => ({ ...field, content: '' })), partField);
  return { attachments: fields.map((field, index) => ({ ...field, content: attachments[index]!.content.toString('base64') })) };
}

const formatted = (mailbox: EmailAddress) => formatMailbox({ name: mailbox.name, address: mailbox.address! });

/** Line ends as a JSON body would give them: the wire's CRLF is SMTP's, not the sender's. */
const lf = (value: string) => value.replace(/\r\n/g, '\n');
