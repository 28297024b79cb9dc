import { headerBlock, type MimeMessage } from './mime-message.js';
import { addressesIn, firstAddress } from './smtp-text.js';
import type { InboundResult } from './types.js';

/**
 * Complaints: RFC 5965 Abuse Reporting Format (`multipart/report;
 * report-type=feedback-report` with a `message/feedback-report` part, as sent
 * by Yahoo, AOL, Comcast, Fastmail, Mail.ru, Yandex and most feedback
 * loops), and Microsoft's JMRP/SNDS reports, which carry no feedback-report
 * part but return the complained-about message with an
 * `X-HmXmrOriginalRecipient` header naming the complaining recipient.
 */

/** The complaints a message reports, one per complaining recipient; null when it is no complaint report. */
export function readComplaint(message: MimeMessage): InboundResult[] | null {
  const returnedHeaders = message.returned.map((part) => headerBlock(part));

  for (const report of message.feedbackReports) {
    const fields = headerBlock(report);
    const feedbackType = fields.get('feedback-type')?.[0]?.trim().toLowerCase().split(/[\s;]/)[0];
    if (!feedbackType) continue;
    const recipients = [
      ...(fields.get('original-rcpt-to') ?? []),
      ...(fields.get('removal-recipient') ?? []),
    ].flatMap((value) => addressesIn(value));
    const fromReturned = recipientOfReturned(returnedHeaders);
    const unique = [...new Set((recipients.length ? recipients : fromReturned ? [fromReturned] : []).filter((a) => !redacted(a)))];
    return (unique.length ? unique : [null]).map((recipient) => complaint(recipient, feedbackType));
  }

  // Microsoft's Junk Mail Reporting Program (never a delivery report, which may return Microsoft's headers too).
  if (message.deliveryStatus.length) return null;
  for (const headers of returnedHeaders) {
    const original = headers.get('x-hmxmroriginalrecipient')?.[0];
    if (original) return [complaint(firstAddress(original), 'abuse')];
  }
  return null;
}

/**
 * Feedback types that are no complaint: `not-spam` (the user took the
 * message out of the spam folder) and RFC 6591 `auth-failure` (a DMARC/SPF/
 * DKIM failure report). They are kept, with kind `none`.
 */
const NOT_COMPLAINTS = new Set(['not-spam', 'auth-failure']);

function complaint(recipient: string | null, feedbackType: string): InboundResult {
  const kind = NOT_COMPLAINTS.has(feedbackType) ? 'none' : 'complaint';
  return { recipient, kind, status: null, diagnostic: null, feedback_type: feedbackType };
}

/** Reporters that hide the recipient write `redacted@…` (RFC 6590 redaction, AOL). */
function redacted(address: string): boolean {
  return /^redacted\b/i.test(address);
}

/**
 * The recipient named by the returned message itself, when the report gives
 * none: the Microsoft header, or a `To` with exactly one address (reports
 * often redact it, then it names no address and is not used).
 */
function recipientOfReturned(returned: Array<Map<string, string[]>>): string | null {
  for (const headers of returned) {
    const hotmail = headers.get('x-hmxmroriginalrecipient')?.[0];
    if (hotmail) return firstAddress(hotmail);
    const to = (headers.get('to') ?? []).flatMap((value) => addressesIn(value)).filter((a) => !redacted(a));
    if (to.length === 1) return to[0]!;
  }
  return null;
}
