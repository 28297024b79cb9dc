import { ValidationError } from '../lib/errors.js';
import { parseScheduledAt } from './scheduling/scheduled-at.js';
import { parseTags, type Tag, type TagInput } from '../lib/tags.js';
import { checkAttachments, type AttachmentInput } from './attachments/attachment-rules.js';
import { parseCustomHeaders } from './custom-headers.js';
import { hasControlCharacters, normalizeAddress, parseMailbox, type Mailbox, type MailboxOptions } from '../lib/email-address.js';

/** SPEC.md's limit on `to`; also the limit on to, cc and bcc together, and on reply_to. */
export const MAX_RECIPIENTS = 50;
/** RFC 5322's line limit: a longer subject cannot be folded safely by every MTA. */
export const MAX_SUBJECT_LENGTH = 998;

/** The body of POST /v1/send once its JSON types are checked. */
export interface SendInput {
  to: string[];
  cc?: string[] | null | undefined;
  bcc?: string[] | null | undefined;
  /** Optional with a template that has a from; else required (template-send.ts). */
  from_email?: string | undefined;
  /** Given by the template when there is one; else required (template-send.ts). */
  subject?: string | undefined;
  html?: string | null | undefined;
  /** Absent or null with `html`: a text part is generated from the HTML; `""` opts out of that. */
  text?: string | null | undefined;
  reply_to?: string | string[] | null | undefined;
  headers?: Record<string, string> | null | undefined;
  tags?: TagInput[] | null | undefined;
  /** ISO 8601 with an offset; delivery is held until then (at most 30 days ahead). */
  scheduled_at?: string | null | undefined;
  attachments?: AttachmentInput[] | null | undefined;
  /** In place of subject, html and text: rendered by applyTemplate (template-send.ts) before parsing. */
  template?: SendTemplateInput | null | undefined;
  /** Whether opens and clicks are tracked; absent or null: as the sender domain's switches say (docs/tracking.md). */
  track_opens?: boolean | null | undefined;
  track_clicks?: boolean | null | undefined;
}

/** `template` of a send: a template by id or alias, its variables, and a published version's number. */
export interface SendTemplateInput {
  id: string;
  variables?: Record<string, unknown> | null | undefined;
  version?: number | null | undefined;
}

/** A send as parseSendRequest takes it: subject and sender present (a template already rendered into them). */
export type CompleteSendInput = Omit<SendInput, 'template'> & { subject: string; from_email: string };

/** Which template and version a send was rendered from: recorded on its message. */
export interface TemplateUsed {
  template_id: string;
  version: number;
}

export interface SendRequest {
  /** The template the subject and bodies were rendered from, if any. */
  template?: TemplateUsed;
  from: Mailbox;
  /**
   * Recipients in request order, each once: an address (compared
   * case-insensitively) given in more than one of to, cc and bcc stays only in
   * the first of them, so it receives one copy and a Bcc is never revealed.
   */
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
  replyTo: Mailbox[];
  subject: string;
  html: string | null;
  /** `''` when the sender opted out of the generated text part (html only). */
  text: string | null;
  headers: [string, string][];
  /** The caller's tags, in request order (lib/tags.ts). */
  tags: Tag[];
  /** When delivery may start (ISO 8601 UTC), or null: at once. */
  scheduledAt: string | null;
  /** Checked, not yet decoded (see sending/attachments): decoded once the whole request passed. */
  attachments: AttachmentInput[];
  /** Their size after decoding, all together. */
  attachmentBytes: number;
  /** The send's own tracking choice; null: the sender domain's. */
  trackOpens: boolean | null;
  trackClicks: boolean | null;
}

/** Applies SPEC.md §2.1 and §8.2 and the send extensions (docs/sending.md, "Send fields"); throws a ValidationError naming the field. */
export function parseSendRequest(input: CompleteSendInput, options: MailboxOptions = {}): SendRequest {
  if (input.to.length === 0) throw new ValidationError('to must contain at least one recipient');
  if (input.to.length > MAX_RECIPIENTS) {
    throw new ValidationError(`to must contain at most ${MAX_RECIPIENTS} recipients (got ${input.to.length})`);
  }
  const total = input.to.length + (input.cc?.length ?? 0) + (input.bcc?.length ?? 0);
  if (total > MAX_RECIPIENTS) {
    throw new ValidationError(`to, cc and bcc must contain at most ${MAX_RECIPIENTS} recipients together (got ${total})`);
  }
  const seen = new Set<string>();
  const unique = (field: string, values: string[] | null | undefined): Mailbox[] => {
    const kept: Mailbox[] = [];
    (values ?? []).forEach((value, index) => {
      const mailbox = parseMailboxField(`${field}[${index}]`, value, options);
      const key = normalizeAddress(mailbox.address);
      if (!seen.has(key)) {
        seen.add(key);
        kept.push(mailbox);
      }
    });
    return kept;
  };
  const to = unique('to', input.to);
  const cc = unique('cc', input.cc);
  const bcc = unique('bcc', input.bcc);

  const from = parseMailboxField('from_email', input.from_email, options);
  const replyTo = parseReplyTo(input.reply_to, options);
  const subject = parseSubjectField('subject', input.subject);

  const html = input.html ? input.html : null;
  // `text: ""` beside html is the opt-out from the generated text part (Resend's convention); kept as ''.
  const text = input.text ? input.text : html !== null && input.text === '' ? '' : null;
  if (html === null && !text) throw new ValidationError('html or text is required: give at least one of them');
  // A NUL can be in no message (RFC 5322 text excludes it), and PostgreSQL's text refuses it: a 400 on every store.
  if (html?.includes('\0')) throw new ValidationError('html must not contain NUL characters');
  if (text?.includes('\0')) throw new ValidationError('text must not contain NUL characters');

  const headers = parseCustomHeaders(input.headers);
  const attachmentBytes = checkAttachments(input.attachments);
  return {
    from, to, cc, bcc, replyTo, subject, html, text, headers,
    tags: parseTags(input.tags),
    scheduledAt: parseScheduledAt(input.scheduled_at, Date.now()),
    attachments: input.attachments ?? [],
    attachmentBytes,
    trackOpens: input.track_opens ?? null,
    trackClicks: input.track_clicks ?? null,
  };
}

/** The send rules for a subject, refusals naming `field` (`Subject` for SMTP submission); answers it trimmed. */
export function parseSubjectField(field: string, value: string): string {
  if (hasControlCharacters(value)) throw new ValidationError(`${field} must not contain line breaks or control characters`);
  const subject = value.trim();
  if (subject === '') throw new ValidationError(`${field} must not be empty`);
  if (subject.length > MAX_SUBJECT_LENGTH) throw new ValidationError(`${field} must be at most ${MAX_SUBJECT_LENGTH} characters long`);
  return subject;
}

function parseReplyTo(value: SendInput['reply_to'], options: MailboxOptions): Mailbox[] {
  if (!value) return [];
  if (typeof value === 'string') return [parseMailboxField('reply_to', value, options)];
  if (value.length > MAX_RECIPIENTS) {
    throw new ValidationError(`reply_to must contain at most ${MAX_RECIPIENTS} addresses (got ${value.length})`);
  }
  return value.map((v, index) => parseMailboxField(`reply_to[${index}]`, v, options));
}

/**
 * The send rules for one mailbox (`address` or `Name <address>`, email-address.ts), refusals naming
 * `field`: the JSON field here, the message's header for SMTP submission (submission/address-headers.ts).
 */
export function parseMailboxField(field: string, value: string, options: MailboxOptions): Mailbox {
  const parsed = parseMailbox(value, options);
  if (parsed === 'control-characters') throw new ValidationError(`${field} must not contain line breaks or control characters`);
  if (parsed === 'non-ascii-local-part') {
    throw new ValidationError(
      `${field} has a non-ASCII local part (${JSON.stringify(value)}), which needs SMTPUTF8: the configured provider cannot send it`,
    );
  }
  if (parsed === 'invalid') {
    throw new ValidationError(`${field} must be a valid email address, optionally as Name <address> (got ${JSON.stringify(value)})`);
  }
  return parsed;
}
