import type { MessageContent, MessageDetail } from '../../messages/index.js';
import { CANCELED_BEFORE_SENDING } from '../../sending/index.js';

/** GET /compat/resend/emails/{id}: Resend's email object. */
export interface ResendEmailView {
  object: 'email';
  id: string;
  to: string[];
  from: string;
  created_at: string;
  subject: string;
  html: string | null;
  text: string | null;
  cc: string[] | null;
  bcc: string[] | null;
  reply_to: string[] | null;
  last_event: string;
  scheduled_at: string | null;
  tags: { name: string; value: string }[];
}

/** What one of Mailroom's recipient events is called among Resend's email events. */
const EVENT_NAMES: Record<string, string> = {
  delivered: 'delivered',
  bounced: 'bounced',
  complained: 'complained',
  suppressed: 'suppressed',
  failed: 'failed',
  // Tracked mail (docs/tracking.md); Resend's own names, machines' opens and clicks among them as in Resend.
  opened: 'opened',
  clicked: 'clicked',
};

/** Hand-overs that are news of their own: a relay took the message (`sent`), or put it off (`delivery_delayed`). */
const ATTEMPT_NAMES: Record<string, string> = { accepted: 'sent', temporary: 'delivery_delayed' };

/**
 * Resend's `last_event` of a message, from what Mailroom recorded of its
 * recipients: the latest of their events (`failed` with `Canceled before
 * sending` is `canceled`) and hand-overs, across recipients; an event wins a
 * tie with a hand-over, since it records the hand-over's outcome. With
 * nothing recorded yet: `scheduled` until a scheduled send is due, `queued`
 * after (accepted, waiting for the worker).
 */
export function lastEventOf(detail: Pick<MessageDetail, 'recipients' | 'scheduled_at'>, now: Date): string {
  let latest: { at: string; rank: number; name: string } | null = null;
  const consider = (at: string, rank: number, name: string | undefined) => {
    if (name === undefined) return;
    if (!latest || at > latest.at || (at === latest.at && rank >= latest.rank)) latest = { at, rank, name };
  };
  for (const recipient of detail.recipients) {
    for (const attempt of recipient.attempts) consider(attempt.at, 0, ATTEMPT_NAMES[attempt.outcome]);
    for (const event of recipient.events) consider(event.at, 1, event.detail === CANCELED_BEFORE_SENDING ? 'canceled' : EVENT_NAMES[event.type]);
  }
  if (latest) return (latest as { name: string }).name;
  return detail.scheduled_at !== null && detail.scheduled_at > now.toISOString() ? 'scheduled' : 'queued';
}

type Mailboxes = { from: string; to: string[]; cc: string[]; bcc: string[]; reply_to: string[] };

const orNull = (list: string[]) => (list.length > 0 ? list : null);

export function emailView(detail: MessageDetail, content: MessageContent, mailboxes: Mailboxes, now: Date): ResendEmailView {
  return {
    object: 'email',
    id: detail.id,
    to: mailboxes.to,
    from: mailboxes.from,
    created_at: detail.created_at,
    subject: detail.subject,
    html: content.html,
    text: content.text,
    cc: orNull(mailboxes.cc),
    bcc: orNull(mailboxes.bcc),
    reply_to: orNull(mailboxes.reply_to),
    last_event: lastEventOf(detail, now),
    scheduled_at: detail.scheduled_at,
    tags: Object.entries(detail.tags).map(([name, value]) => ({ name, value })),
  };
}
