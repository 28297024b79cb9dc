import { Wrappable } from '../../components/Wrappable';
import { STATUS_BADGE, type Engagement, type RecipientEvent } from './types';
import { shortUserAgent } from './user-agent';
import './engagement.css';

/** Why a rule calls an open or click a machine's (docs/tracking.md's table), in words a reader of the timeline needs. */
const RULE: Record<string, string> = {
  'head-request': 'a HEAD request, which only asks whether the address answers',
  'no-user-agent': 'no user agent, which every mail client and browser sends',
  'apple-mpp': 'Apple Mail Privacy Protection fetches images as mail arrives, read or not',
  'scanner-user-agent': 'the user agent of a security scanner or an HTTP library',
  'google-image-proxy': 'Gmail’s image proxy, fetching for its reader',
  'soon-after-delivery': 'within 5 seconds of delivery, before anyone could read it',
  'every-link-at-once': 'every link of the message clicked within a second',
};

/** The timeline's sentence: who opened or clicked, and why Mailroom thinks so. */
function what(type: string, e: Engagement): string {
  const verb = type === 'opened' ? 'Opened' : 'Clicked';
  const why = e.machine_rule ? (RULE[e.machine_rule] ?? e.machine_rule) : null;
  if (e.machine) return `${verb} by a machine, not a person${why ? `: ${why}` : ''}`;
  if (e.proxy) return `${verb} by a person, through ${why ?? 'a mailbox provider’s image proxy'}`;
  return `${verb} by a person`;
}

/**
 * Only http(s) links are ever rewritten, so a click's URL is one of those; anything else
 * (a row written by hand, a future kind) is shown as text, never made a link.
 */
const linkable = (url: string) => /^https?:\/\//i.test(url);

/** The client's network as recorded: the address already cut to its /24 (IPv4) or /48 (IPv6). */
const network = (ip: string | null) => (ip === null ? 'unknown' : `${ip}/${ip.includes(':') ? 48 : 24}`);

/** An open or a click: a badge saying whether a machine made it and by which rule, the link, the client and its network. */
export function EngagementEvent({ event, engagement: e }: { event: RecipientEvent; engagement: Engagement }) {
  const url = e.url ?? event.detail;
  const client = (
    <>
      {shortUserAgent(e.user_agent)} · <span className="timeline-network">network {network(e.ip)}</span>
    </>
  );
  return (
    <>
      <div className="timeline-head">
        <span className="timeline-kind">Event</span>
        <span className={`badge badge-${STATUS_BADGE[event.status] ?? 'pending'}`}>{event.type}</span>
        {e.machine ? (
          <span className="badge badge-pending badge-machine">machine{e.machine_rule && ` · ${e.machine_rule}`}</span>
        ) : (
          e.proxy && <span className="badge badge-proxy">proxy{e.machine_rule && ` · ${e.machine_rule}`}</span>
        )}
      </div>
      <p className="timeline-what">{what(event.type, e)}</p>
      {url && (
        <p className="timeline-link">
          <span className="visually-hidden">Link: </span>
          {linkable(url) ? (
            <a href={url} target="_blank" rel="noopener noreferrer" title={url}>
              <Wrappable text={url} />
            </a>
          ) : (
            <code>{url}</code>
          )}
        </p>
      )}
      {e.user_agent?.trim() ? (
        // The short name is what a glance needs; the string as sent, a click away, is what a rule read.
        <details className="timeline-client small">
          <summary>{client}</summary>
          <code>{e.user_agent}</code>
        </details>
      ) : (
        <p className="timeline-client muted small">{client}</p>
      )}
    </>
  );
}
