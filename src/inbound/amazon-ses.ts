import { complaintResult } from './feedback-report.js';
import type { MimeMessage } from './mime-message.js';
import { collapse, findStatusCode } from './smtp-text.js';
import type { BounceFinding, BounceReason, InboundResult } from './types.js';
import { emptyFinding } from './types.js';

/**
 * Amazon SES event notifications (Bounce, Complaint, Delivery), which SES
 * publishes through SNS and SNS can deliver as e-mail: the body is the JSON
 * notification itself, or an SNS envelope whose `Message` is that JSON,
 * followed by SNS's footer; forwarded on, it may sit in an attachment, or
 * have its long lines broken by sendmail (a `!` at the end of the line, the
 * rest on the next after a space).
 * https://docs.aws.amazon.com/ses/latest/dg/notification-contents.html
 *
 * SES's bounce type says what SES will do (retry or not), not why: the
 * reason, and so whether the address is bad for good, comes from the
 * recipient's status and diagnostic, as for any report. Only where SES
 * states nothing else does its subtype name the reason.
 */

export interface SesRecipient {
  emailAddress?: string;
  status?: string;
  diagnosticCode?: string;
  action?: string;
}

/**
 * SES's event JSON, in both its shapes: a configuration set's event
 * publishing (`eventType`) and an identity's feedback notifications
 * (`notificationType`); the fields Mailroom reads.
 */
export interface SesNotification {
  notificationType?: string;
  eventType?: string;
  mail?: { messageId?: string; destination?: string[]; headers?: Array<{ name?: string; value?: string }>; commonHeaders?: { messageId?: string } };
  bounce?: { bounceType?: string; bounceSubType?: string; bouncedRecipients?: SesRecipient[] };
  complaint?: { complainedRecipients?: SesRecipient[]; complaintFeedbackType?: string };
  delivery?: { recipients?: string[]; smtpResponse?: string };
  reject?: { reason?: string };
  deliveryDelay?: { delayType?: string; delayedRecipients?: SesRecipient[]; expirationTime?: string };
}

/** The Message-ID header of the original as SES quotes it (the sender's own, which SES keeps in `mail.headers`), or null. */
function sesHeaderMessageId(notification: SesNotification): string | null {
  const headerId = notification.mail?.headers?.find((h) => h.name?.toLowerCase() === 'message-id')?.value;
  return notification.mail?.commonHeaders?.messageId ?? headerId ?? null;
}

/** What SES's bounce subtypes mean, where they say more than the remote's reply. */
const SUBTYPE_REASONS: Record<string, BounceReason> = {
  mailboxfull: 'mailboxfull',
  messagetoolarge: 'mesgtoobig',
};

/** What the other subtypes mean when SES gives no status and no diagnostic at all. */
const BARE_SUBTYPE_REASONS: Record<string, BounceReason> = {
  noemail: 'userunknown',
  suppressed: 'userunknown',
  onaccountsuppressionlist: 'userunknown',
  contentrejected: 'filtered',
  attachmentrejected: 'contenterror',
};

export interface SesReading {
  /** Bounce and delivery outcomes, to classify; complaints come ready-made. */
  findings: BounceFinding[];
  complaints: InboundResult[];
  originalMessageId: string | null;
}

/** Reads an SES notification out of a message's text or text attachments; null when there is none. */
export function readSesNotification(message: MimeMessage): SesReading | null {
  for (const text of [message.text, ...message.attachedText]) {
    // Inside an SNS envelope the notification is a JSON string: its quotes are escaped.
    if (!/\\?"(?:notificationType|eventType)\\?"/.test(text)) continue;
    const notification = notificationIn(text) ?? notificationIn(unbreakSendmailLines(text));
    if (notification) return readNotification(notification);
  }
  return null;
}

/** Sendmail breaks lines longer than its limit with `!`, a line end and a space: joined again. */
function unbreakSendmailLines(text: string): string {
  return text.replace(/!\r?\n /g, '');
}

function readNotification(notification: SesNotification): SesReading | null {
  const type = (notification.notificationType ?? notification.eventType ?? '').toLowerCase();
  const originalMessageId = sesHeaderMessageId(notification);
  const reading: SesReading = { findings: [], complaints: [], originalMessageId };

  if (type === 'bounce') {
    const subType = notification.bounce?.bounceSubType?.toLowerCase() ?? '';
    for (const r of notification.bounce?.bouncedRecipients ?? []) {
      const finding = emptyFinding(r.emailAddress?.toLowerCase() ?? null);
      finding.action = r.action?.toLowerCase() ?? 'failed';
      finding.diagnostic = r.diagnosticCode ? collapse(r.diagnosticCode.replace(/^smtp;\s*/i, '')) || null : null;
      finding.status = r.status?.trim() || findStatusCode(finding.diagnostic);
      finding.diagnosticType = 'smtp';
      const bare = !finding.status && !finding.diagnostic;
      finding.reason = SUBTYPE_REASONS[subType] ?? (bare ? (BARE_SUBTYPE_REASONS[subType] ?? null) : null);
      finding.temporary = bare && notification.bounce?.bounceType?.toLowerCase() === 'transient';
      if (!finding.diagnostic) finding.diagnostic = [notification.bounce?.bounceType, notification.bounce?.bounceSubType].filter(Boolean).join(' / ') || null;
      reading.findings.push(finding);
    }
  } else if (type === 'complaint') {
    const feedbackType = notification.complaint?.complaintFeedbackType?.toLowerCase() || 'abuse';
    for (const r of notification.complaint?.complainedRecipients ?? []) {
      reading.complaints.push(complaintResult(r.emailAddress?.toLowerCase() ?? null, feedbackType));
    }
  } else if (type === 'delivery') {
    const response = notification.delivery?.smtpResponse ?? null;
    for (const address of notification.delivery?.recipients ?? []) {
      const finding = emptyFinding(address.toLowerCase());
      finding.action = 'delivered';
      finding.diagnostic = response;
      finding.status = findStatusCode(response) ?? '2.0.0';
      reading.findings.push(finding);
    }
  } else {
    return null;
  }
  return reading;
}

function notificationIn(text: string): SesNotification | null {
  const start = text.indexOf('{');
  if (start < 0) return null;
  const end = text.lastIndexOf('}');
  for (const candidate of [text.slice(start, end + 1), firstJsonObject(text.slice(start))]) {
    if (!candidate) continue;
    try {
      const value = JSON.parse(candidate) as SesNotification & { Message?: string; Type?: string };
      if (typeof value.Message === 'string') return notificationIn(value.Message);
      if (value && (value.notificationType || value.eventType)) return value;
    } catch {
      // not JSON, or not only JSON: try the next reading
    }
  }
  return null;
}

/** The first balanced {…} in the text (the SNS footer follows the JSON in SNS e-mail). */
function firstJsonObject(text: string): string | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(0, i + 1);
  }
  return null;
}
