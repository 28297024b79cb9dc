import { headerBlock, type MimeMessage } from './mime-message.js';
import { addressesIn, firstAddress } from './smtp-text.js';
import type { InboundResult } from './types.js';

/**
 * Complaints: RFC 5965 Abuse Reporting Format (`multipart/report;
 * report-type=feedback-report` with a `message/feedback-report` part, as sent
 * by Yahoo, AOL, Comcast, Fastmail, Mail.ru, Yandex and most feedback
 * loops), RFC 6591 authentication failure reports in the same format, and
 * the variants providers send: the feedback fields in a `text/plain` part or
 * in the body itself, the returned message as text rather than a
 * `message/rfc822` part. And Microsoft's JMRP/SNDS reports, which carry no
 * feedback fields at all but return the complained-about message with an
 * `X-HmXmrOriginalRecipient` header naming the complaining recipient.
 */

/** The complaints a message reports, one per complaining recipient; null when it is no complaint report. */
export function readComplaint(message: MimeMessage): InboundResult[] | null {
  const returnedHeaders = message.returned.map((part) => headerBlock(part));

  for (const report of [...message.feedbackReports, ...inlineFeedbackFields(message)]) {
    const fields = headerBlock(report);
    const feedbackType = fields.get('feedback-type')?.[0]?.trim().toLowerCase().split(/[\s;]/)[0];
    if (!feedbackType) continue;
    const recipients = [
      ...(fields.get('original-rcpt-to') ?? []),
      ...(fields.get('removal-recipient') ?? []),
    ].flatMap((value) => addressesIn(value));
    const fromReturned = recipientOfReturned([...returnedHeaders, ...inlineReturnedHeaders(message)]);
    const unique = [...new Set((recipients.length ? recipients : fromReturned ? [fromReturned] : []).filter((a) => !redacted(a)))];
    return (unique.length ? unique : [null]).map((recipient) => complaintResult(recipient, feedbackType));
  }

  // Microsoft's Junk Mail Reporting Program (never a delivery report, which may return Microsoft's headers too).
  if (message.deliveryStatus.length) return null;
  for (const headers of [...returnedHeaders, ...inlineReturnedHeaders(message)]) {
    const original = headers.get('x-hmxmroriginalrecipient')?.[0];
    if (original) return [complaintResult(firstAddress(original), 'abuse')];
  }
  return null;
}

/**
 * Feedback types that are no complaint: `not-spam` (the user took the
 * message out of the spam folder) and RFC 6591 `auth-failure` (a DMARC/SPF/
 * DKIM failure report). The parser reads them as what they are, feedback
 * reports (kind `complaint`, as the field counts them), with their type; the
 * inbound report service leaves their recipients as they were, since acting
 * on them would suppress people who complained of nothing.
 */
const NOT_COMPLAINTS = new Set(['not-spam', 'auth-failure']);

/** Whether a feedback report of this `Feedback-Type` is someone's complaint about the message. */
export function isComplaintFeedback(feedbackType: string | null): boolean {
  return feedbackType === null || !NOT_COMPLAINTS.has(feedbackType.toLowerCase());
}

export function complaintResult(recipient: string | null, feedbackType: string): InboundResult {
  return { recipient, kind: 'complaint', status: null, diagnostic: null, feedback_type: feedbackType, reason: 'feedback' };
}

/** A `Feedback-Type:` line among other ARF fields (`User-Agent`, `Version`, `Original-Mail-From`…). */
const FEEDBACK_TYPE_LINE = /^Feedback-Type[ \t]*:[ \t]*\S+/im;
const OTHER_ARF_FIELD = /^(?:User-Agent|Version|Original-Mail-From|Original-Rcpt-To|Arrival-Date|Received-Date|Source-IP|Reported-Domain|Reporting-MTA|Removal-Recipient)[ \t]*:/im;

/**
 * The feedback fields a report writes outside a `message/feedback-report`
 * part: in a text part or the body, from the `Feedback-Type:` line to the
 * next blank line. Only in a report (`report-type=feedback-report`), or
 * with the other ARF fields beside it, so that mail quoting one line is not
 * taken for a report.
 */
function inlineFeedbackFields(message: MimeMessage): string[] {
  if (message.feedbackReports.length) return [];
  const found: string[] = [];
  for (const text of [message.text, ...message.attachedText]) {
    const at = text.search(FEEDBACK_TYPE_LINE);
    if (at < 0) continue;
    const block = blockAround(text, at);
    if (message.reportType === 'feedback-report' || OTHER_ARF_FIELD.test(block)) found.push(block);
  }
  return found;
}

/** The header-like block (no blank line inside) that holds the position. */
function blockAround(text: string, at: number): string {
  const start = text.lastIndexOf('\n\n', at);
  const end = text.indexOf('\n\n', at);
  return text.slice(start < 0 ? 0 : start + 2, end < 0 ? text.length : end);
}

/** A returned message's headers quoted in the text or a text part (after a `message/rfc822` or `text/rfc822-headers` line, or as an attachment's own start). */
function inlineReturnedHeaders(message: MimeMessage): Array<Map<string, string[]>> {
  const headers: Array<Map<string, string[]>> = [];
  for (const text of [message.text, ...message.attachedText]) {
    // The headers start after the first blank line below the marker, found by indexOf: a pattern reading on
    // to it would read the text again from every marker line of a text without one.
    const marker = /^Content-Type:[ \t]*(?:message\/rfc822|text\/rfc822-headers)[^\n]*\n/im.exec(text);
    const blank = marker ? text.indexOf('\n\n', marker.index + marker[0].length - 1) : -1;
    if (blank >= 0) headers.push(headerBlock(text.slice(blank + 2)));
    else if (/^(?:Received|Return-Path|X-HmXmrOriginalRecipient|Message-ID)[ \t]*:/i.test(text)) headers.push(headerBlock(text));
  }
  return headers;
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
