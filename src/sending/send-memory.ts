import { SMALL_BODY_BYTES } from '../http/body-budget.js';
import { MAX_ATTACHMENT_BYTES } from './attachments/attachment-rules.js';

/**
 * The most one send may make Mailroom buffer, over HTTP (POST /v1/send,
 * /v1/send/batch, their Resend-compatible twins) or SMTP submission: every
 * other route's body limit (10 MiB, for the HTML, text and the rest), plus 40
 * MB of attachments in base64 with a line break every 76 characters, as JSON
 * escapes it (80 characters for every 57 bytes): 66 MiB, rounded up to 70 MiB.
 * A batch carries no more attachment bytes than one send (send-service.ts),
 * so it shares the limit.
 */
export const SEND_BODY_LIMIT = 70 * 1024 * 1024;
if (SEND_BODY_LIMIT < 10 * 1024 * 1024 + Math.ceil(MAX_ATTACHMENT_BYTES / 57) * 80) throw new Error('SEND_BODY_LIMIT is too small for MAX_ATTACHMENT_BYTES');

/** Large sends read at once, by every way in together: two of the largest, or more smaller ones (bench:attachments). */
export const SEND_MEMORY_BUDGET = 2 * SEND_BODY_LIMIT;

/** Sends below this are never held back: an ordinary send is not queued behind a 50 MB one (http/body-budget.ts, for the API's routes). */
export const SMALL_SEND_BYTES = SMALL_BODY_BYTES;
