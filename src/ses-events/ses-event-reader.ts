import type { SesNotification, SesRecipient } from '../inbound/index.js';

/** One recipient an SES event names, with what it says of them. */
export interface NamedRecipient {
  address: string;
  /** The recipient's diagnostic (a bounce's or a delay's diagnosticCode), or null. */
  diagnostic: string | null;
}

/** What an SES event asks of the recipients it names. */
export type SesAction =
  | { kind: 'delivered'; recipients: NamedRecipient[] }
  | { kind: 'bounced'; recipients: NamedRecipient[]; bounceType: string; bounceSubType: string }
  | { kind: 'soft_bounce'; recipients: NamedRecipient[]; bounceType: string; bounceSubType: string }
  | { kind: 'complained'; recipients: NamedRecipient[]; feedbackType: string }
  | { kind: 'rejected'; recipients: NamedRecipient[]; reason: string }
  | { kind: 'delayed'; recipients: NamedRecipient[]; delayType: string };

export interface SesEvent {
  /** SES's own word for it (`Bounce`, `Delivery`, …), as either shape gives it. */
  type: string;
  sesMessageId: string | null;
  /** The original's Message-ID as SES quotes it: from `mail.headers` first (the header as sent), then `commonHeaders`. */
  headerMessageIds: string[];
  action: SesAction | null;
}

const named = (recipients: SesRecipient[] | undefined): NamedRecipient[] =>
  (recipients ?? []).filter((r) => typeof r.emailAddress === 'string').map((r) => ({ address: r.emailAddress!, diagnostic: r.diagnosticCode?.trim() || null }));
const addresses = (list: string[] | undefined): NamedRecipient[] => (list ?? []).filter((a) => typeof a === 'string').map((address) => ({ address, diagnostic: null }));

/**
 * Reads SES's event JSON (an SNS Notification's Message), published by a
 * configuration set (`eventType`) or sent as an identity's feedback
 * notification (`notificationType`): the same objects under either name.
 * https://docs.aws.amazon.com/ses/latest/dg/event-publishing-retrieving-sns-contents.html
 * https://docs.aws.amazon.com/ses/latest/dg/notification-contents.html
 * `action` is null for an event Mailroom does not act on (Send, Open, Click, …).
 */
export function readSesEvent(notification: SesNotification): SesEvent {
  const type = notification.eventType ?? notification.notificationType ?? '';
  const fromHeaders = (notification.mail?.headers ?? []).filter((h) => h.name?.toLowerCase() === 'message-id').map((h) => h.value);
  const headerMessageIds = [...new Set([...fromHeaders, notification.mail?.commonHeaders?.messageId].filter((v): v is string => typeof v === 'string' && v !== ''))];
  const event: SesEvent = { type, sesMessageId: typeof notification.mail?.messageId === 'string' ? notification.mail.messageId : null, headerMessageIds, action: null };
  switch (type) {
    case 'Delivery':
      event.action = { kind: 'delivered', recipients: addresses(notification.delivery?.recipients) };
      break;
    case 'Bounce': {
      const bounceType = notification.bounce?.bounceType ?? 'Undetermined';
      const bounceSubType = notification.bounce?.bounceSubType ?? 'General';
      // Only a Permanent bounce is one SES gives up on for good: Transient and Undetermined may pass another time.
      const kind = bounceType === 'Permanent' ? 'bounced' : 'soft_bounce';
      event.action = { kind, recipients: named(notification.bounce?.bouncedRecipients), bounceType, bounceSubType };
      break;
    }
    case 'Complaint':
      event.action = { kind: 'complained', recipients: named(notification.complaint?.complainedRecipients), feedbackType: notification.complaint?.complaintFeedbackType ?? 'abuse' };
      break;
    case 'Reject':
      // A Reject names no recipients of its own: it is about every one the message was for.
      event.action = { kind: 'rejected', recipients: addresses(notification.mail?.destination), reason: notification.reject?.reason ?? 'rejected' };
      break;
    case 'DeliveryDelay':
      event.action = { kind: 'delayed', recipients: named(notification.deliveryDelay?.delayedRecipients), delayType: notification.deliveryDelay?.delayType ?? 'Undetermined' };
      break;
  }
  return event;
}
