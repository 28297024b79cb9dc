import { EngagementEvent } from './EngagementEvent';
import { STATUS_BADGE, when, type Attempt, type Recipient, type RecipientEvent } from './types';

/** What each attempt outcome means, in words (the README's delivery table). */
const OUTCOME: Record<string, string> = {
  delivered: 'Delivered by the provider',
  accepted: 'Accepted by the relay',
  temporary: 'Refused for now: tried again later',
  permanent: 'Refused',
  failed: 'Failed before the hand-over',
  suppressed: 'Not sent: on the suppression list',
};

const EVENT: Record<string, string> = {
  delivered: 'Delivered',
  bounced: 'Bounced',
  complained: 'Marked as spam',
  suppressed: 'Suppressed',
  failed: 'Failed',
  delivery_delayed: 'Delayed: the provider is still trying',
};

type Item = { at: string; attempt: Attempt; event?: undefined } | { at: string; event: RecipientEvent; attempt?: undefined };

/** Attempts and events by time; an attempt before the event it led to when both carry the same instant. */
function timeline(recipient: Recipient): Item[] {
  const items: Item[] = [...recipient.attempts.map((attempt) => ({ at: attempt.at, attempt })), ...recipient.events.map((event) => ({ at: event.at, event }))];
  return items.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

function duration(ms: number | null): string | null {
  if (ms === null) return null;
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function AttemptItem({ attempt }: { attempt: Attempt }) {
  const inbound = attempt.provider === 'inbound';
  const took = duration(attempt.duration_ms);
  return (
    <>
      <div className="timeline-head">
        <span className="timeline-kind">{inbound ? 'Reported by the recipient’s server' : `Attempt ${attempt.attempt}`}</span>
        <span className={`badge badge-${STATUS_BADGE[attempt.outcome] ?? 'pending'}`}>{attempt.outcome}</span>
        <span className="muted small">
          {inbound ? 'soft bounce' : `via ${attempt.provider}`}
          {attempt.upstream?.startsWith('ups_') && ` · upstream ${attempt.upstream}`}
          {took && ` · took ${took}`}
        </span>
      </div>
      <p className="timeline-what">{attempt.provider === 'ses' && attempt.outcome === 'accepted' ? 'Accepted by SES: its events say what came of it' : (OUTCOME[attempt.outcome] ?? attempt.outcome)}</p>
      {attempt.reply && (
        <p className="timeline-reply">
          <span className="visually-hidden">Reply: </span>
          <code>{attempt.reply}</code>
        </p>
      )}
    </>
  );
}

function EventItem({ event }: { event: RecipientEvent }) {
  if (event.engagement) return <EngagementEvent event={event} engagement={event.engagement} />;
  return (
    <>
      <div className="timeline-head">
        <span className="timeline-kind">Event</span>
        <span className={`badge badge-${STATUS_BADGE[event.status] ?? 'pending'}`}>{event.type}</span>
      </div>
      <p className="timeline-what">{EVENT[event.type] ?? event.type}</p>
      {event.detail && (
        <p className="timeline-reply">
          <span className="visually-hidden">Detail: </span>
          <code>{event.detail}</code>
        </p>
      )}
    </>
  );
}

/**
 * The recipient's status as the page shows it: the `send` entry's, unless the
 * recipient complained. A complaint is an entry of its own (the Logs'
 * `complaint: complained`) that leaves the delivery's status as it was, yet it
 * is the latest news of the recipient, so it wins; what it followed is kept in words.
 */
function shownStatus(recipient: Recipient): { status: string; before?: string } {
  if (recipient.status !== 'complained' && recipient.events.some((e) => e.type === 'complained')) return { status: 'complained', before: recipient.status };
  return { status: recipient.status };
}

/** One recipient: its status, then everything that happened to it, oldest first. Text from mail stays text. */
export function RecipientTimeline({ recipient, index }: { recipient: Recipient; index: number }) {
  const items = timeline(recipient);
  const titleId = `recipient-${index}`;
  const { status, before } = shownStatus(recipient);
  return (
    <section className="recipient" aria-labelledby={titleId}>
      <h3 id={titleId}>
        <span className="url">{recipient.to}</span> <span className={`badge badge-${STATUS_BADGE[status] ?? 'pending'}`}>{status}</span>
        {before && <span className="muted small"> {before}, then marked as spam</span>}
      </h3>
      {recipient.error && <p className="log-error">{recipient.error}</p>}
      {recipient.note && <p className="recipient-note">{recipient.note}</p>}
      {items.length === 0 && <p className="muted">Nothing yet: the message waits for its hand-over.</p>}
      {items.length > 0 && (
        <ol className="timeline" aria-label={`Timeline of ${recipient.to}`}>
          {items.map((item, i) => (
            <li key={i} className={item.attempt ? 'timeline-attempt' : 'timeline-event'}>
              <time dateTime={item.at} className="muted small">
                {when(item.at)}
              </time>
              {item.attempt ? <AttemptItem attempt={item.attempt} /> : <EventItem event={item.event} />}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
