import { ValidationError } from '../errors.js';
import { hasControlCharacters, normalizeAddress, parseMailbox, type Mailbox } from './email-address.js';

export const MAX_RECIPIENTS = 50;
/** RFC 5322's line limit: a longer subject cannot be folded safely by every MTA. */
export const MAX_SUBJECT_LENGTH = 998;

/** The body of POST /v1/send once its JSON types are checked. */
export interface SendInput {
  to: string[];
  from_email: string;
  subject: string;
  html?: string | null | undefined;
  text?: string | null | undefined;
  reply_to?: string | null | undefined;
}

export interface SendRequest {
  from: Mailbox;
  /** Recipients in request order, duplicates (compared case-insensitively) removed. */
  to: Mailbox[];
  replyTo: Mailbox | null;
  subject: string;
  html: string | null;
  text: string | null;
}

/** Applies SPEC.md §2.1 and §8.2; throws a ValidationError naming the field. */
export function parseSendRequest(input: SendInput): SendRequest {
  if (input.to.length === 0) throw new ValidationError('to must contain at least one recipient');
  if (input.to.length > MAX_RECIPIENTS) {
    throw new ValidationError(`to must contain at most ${MAX_RECIPIENTS} recipients (got ${input.to.length})`);
  }
  const to: Mailbox[] = [];
  const seen = new Set<string>();
  input.to.forEach((value, index) => {
    const mailbox = mailboxOrThrow(`to[${index}]`, value);
    const key = normalizeAddress(mailbox.address);
    if (!seen.has(key)) {
      seen.add(key);
      to.push(mailbox);
    }
  });

  const from = mailboxOrThrow('from_email', input.from_email);
  const replyTo = input.reply_to ? mailboxOrThrow('reply_to', input.reply_to) : null;

  if (hasControlCharacters(input.subject)) throw new ValidationError('subject must not contain line breaks or control characters');
  const subject = input.subject.trim();
  if (subject === '') throw new ValidationError('subject must not be empty');
  if (subject.length > MAX_SUBJECT_LENGTH) {
    throw new ValidationError(`subject must be at most ${MAX_SUBJECT_LENGTH} characters long`);
  }

  const html = input.html ? input.html : null;
  const text = input.text ? input.text : null;
  if (html === null && text === null) throw new ValidationError('html or text is required: give at least one of them');

  return { from, to, replyTo, subject, html, text };
}

function mailboxOrThrow(field: string, value: string): Mailbox {
  const parsed = parseMailbox(value);
  if (parsed === 'control-characters') throw new ValidationError(`${field} must not contain line breaks or control characters`);
  if (parsed === 'invalid') {
    throw new ValidationError(`${field} must be a valid email address, optionally as Name <address> (got ${JSON.stringify(value)})`);
  }
  return parsed;
}
