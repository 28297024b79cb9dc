import { ForbiddenError, RateLimitError, RecipientLimitError, ServiceUnavailableError, ValidationError } from '../lib/errors.js';

/**
 * Every reply the submission server words itself, in one table (docs/smtp.md,
 * "Replies"): the code (RFC 5321), the enhanced status code (RFC
 * 3463, RFC 4954 for authentication) and the text. smtp-server's own replies
 * (syntax errors, bad sequence, 538 before STARTTLS) carry no enhanced code:
 * it only adds them all or none, and its defaults would mislabel ours.
 */
export const SUBMISSION_REPLIES = {
  queued: { code: 250, text: (messageId: string) => `2.0.0 OK: queued as ${messageId}` },
  authRequired: { code: 530, text: () => '5.7.0 Authentication required' },
  badCredentials: { code: 535, text: () => '5.7.8 Authentication credentials invalid (user mailroom, an API key as password)' },
  authThrottled: { code: 454, text: (seconds: number) => `4.7.0 Too many failed authentications from your address; try again in ${seconds} s` },
  authUnavailable: { code: 454, text: () => '4.7.0 Temporary authentication failure, please try again later' },
  rateLimited: { code: 451, text: (seconds: number) => `4.7.1 Rate limit exceeded; try again in ${seconds} s` },
  recipientsLimited: { code: 451, text: (limit: number, seconds: number) => `4.7.1 Rate limit exceeded: the workspace may send to ${limit} recipients per minute; try again in ${seconds} s` },
  tooManyRecipients: { code: 452, text: (max: number) => `4.5.3 Too many recipients (at most ${max} per message)` },
  badRecipient: { code: 553, text: () => '5.1.3 Recipient address rejected: not a valid e-mail address' },
  tooBig: { code: 552, text: (why: string) => `5.3.4 Message too big: ${why}` },
  invalid: { code: 550, text: (sentence: string) => `5.6.0 ${sentence}` },
  notAllowed: { code: 550, text: (sentence: string) => `5.7.1 ${sentence}` },
  notSent: { code: 550, text: (why: string, messageId: string) => `5.7.1 Not sent: ${why} (recorded as ${messageId})` },
  unavailable: { code: 451, text: () => '4.3.0 Service temporarily unavailable, please try again later' },
  internal: { code: 451, text: () => '4.3.0 Temporary failure, please try again later' },
  /** The greeting's refusal when no STARTTLS certificate could be made: the client comes back later. */
  noCertificate: { code: 421, text: () => '4.3.0 Service not available, please try again later' },
} as const;

/** An error smtp-server answers with: its `responseCode` and the message as the reply text. */
export type SmtpReplyError = Error & { responseCode: number };

export function smtpReply(code: number, text: string): SmtpReplyError {
  return Object.assign(new Error(text), { responseCode: code });
}

/** The message is larger than a send may be (SIZE, or attachments over the send rules' limit). */
export class MessageTooBigError extends Error {
  override name = 'MessageTooBigError';
}

/**
 * The reply for an error thrown while a message is taken in: the send rules'
 * refusals keep their sentence; anything unexpected is a temporary failure
 * whose cause is for the log only (`internal: true`), so the client retries.
 */
export function replyForError(error: unknown): { reply: SmtpReplyError; internal: boolean } {
  const r = SUBMISSION_REPLIES;
  if (error instanceof MessageTooBigError) return { reply: smtpReply(r.tooBig.code, r.tooBig.text(error.message)), internal: false };
  if (error instanceof ValidationError) return { reply: smtpReply(r.invalid.code, r.invalid.text(error.message)), internal: false };
  if (error instanceof ForbiddenError) return { reply: smtpReply(r.notAllowed.code, r.notAllowed.text(error.message)), internal: false };
  if (error instanceof RecipientLimitError) {
    return { reply: smtpReply(r.recipientsLimited.code, r.recipientsLimited.text(error.budget.limit, error.retryAfterSeconds)), internal: false };
  }
  if (error instanceof RateLimitError) return { reply: smtpReply(r.rateLimited.code, r.rateLimited.text(error.retryAfterSeconds)), internal: false };
  if (error instanceof ServiceUnavailableError) return { reply: smtpReply(r.unavailable.code, r.unavailable.text()), internal: false };
  return { reply: smtpReply(r.internal.code, r.internal.text()), internal: true };
}
