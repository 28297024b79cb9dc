import { readMimeMessage, type MimeMessage } from './mime-message.js';

/**
 * A report attached whole to another message: a bounce or complaint
 * forwarded as `message/rfc822` (by a person, a ticket system, or an MTA
 * that wraps the reports it relays, as some unnamed MTAs do: an outer
 * notice to "NotificationRecipients" holding the real `multipart/report`).
 * The outer message reads as no report (the parser asks only then); the
 * attached one is read as if it had come alone.
 */

/** The first attached message that is itself a report, taken apart; null when there is none. */
export async function reportInside(message: MimeMessage): Promise<MimeMessage | null> {
  for (const part of message.returned) {
    if (!looksLikeReport(part)) continue;
    try {
      return await readMimeMessage(Buffer.from(part, 'utf8'));
    } catch {
      // a part mailparser cannot take apart is no report we can read
    }
  }
  return null;
}

/** What a report's own headers say, before it is worth taking apart: a report content type, or a mailer daemon's sender. */
function looksLikeReport(part: string): boolean {
  const end = part.indexOf('\n\n');
  const headers = end >= 0 ? part.slice(0, end) : part;
  return (
    /^Content-Type:[ \t]*multipart\/report/im.test(headers) ||
    /^From:.*\b(?:mailer-daemon|postmaster|mail delivery (?:system|subsystem))\b/im.test(headers) ||
    /^Content-Type:[ \t]*message\/(?:delivery-status|feedback-report)/im.test(part)
  );
}
