import { useEffect, useRef } from 'react';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormError } from '../../components/FormError';
import { api } from '../../lib/api';
import { useResource } from '../../lib/use-resource';
import type { Delivery, ShownSecret, WebhookDetail } from './types';

/** A pending delivery's outcome is read this long after it is due (and no sooner than this from now)… */
const REFRESH_MS = 1000;
/** …or after this, whichever is sooner: a retry may be hours away. */
const MAX_REFRESH_WAIT_MS = 60_000;

interface WebhookDeliveriesProps {
  /** The endpoint's path in the dashboard API. */
  path: string;
  canChange: boolean;
  /** A rotated secret, to be shown once. */
  onSecret: (shown: ShownSecret) => void;
  /** Something changed that the list shows (a delivery finished, the secret was rotated). */
  onChanged: () => void;
  onClose: () => void;
}

const when = (iso: string) => new Date(iso).toLocaleString();

function nextAttempt(d: Delivery): string {
  if (!d.next_attempt_at) return '—';
  return Date.parse(d.next_attempt_at) <= Date.now() ? 'Now' : when(d.next_attempt_at);
}

/** What the receiver answered last: its status code, else why there was none. */
function response(d: Delivery) {
  if (d.last_status !== null) return d.last_status;
  return <span className="muted">{d.last_error ?? '—'}</span>;
}

/** One endpoint: its facts, a test event, secret rotation, and its latest deliveries with a retry each. */
export function WebhookDeliveries({ path, canChange, onSecret, onChanged, onClose }: WebhookDeliveriesProps) {
  const { data: hook, error, reload, change } = useResource<WebhookDetail>(path);
  const due = hook?.deliveries.flatMap((d) => (d.state === 'pending' && d.next_attempt_at ? [Date.parse(d.next_attempt_at)] : [])) ?? [];
  const soonest = due.length > 0 ? Math.min(...due) : undefined;

  // Read again once the soonest pending delivery has been tried, so its outcome shows without a click;
  // re-armed after every read (`hook`), since a delivery being posted stays due until its outcome is written.
  useEffect(() => {
    if (soonest === undefined) return;
    const timer = setTimeout(reload, Math.min(MAX_REFRESH_WAIT_MS, Math.max(REFRESH_MS, soonest - Date.now() + REFRESH_MS)));
    return () => clearTimeout(timer);
  }, [hook, soonest, reload]);

  // A delivery that finished changes the endpoint's success rate in the list.
  const pendingBefore = useRef(0);
  useEffect(() => {
    if (due.length < pendingBefore.current) onChanged();
    pendingBefore.current = due.length;
  }, [due.length, onChanged]);

  const rotate = () =>
    change(async () => {
      const { secret } = await api<{ secret: string }>('POST', `${path}/rotate-secret`);
      onSecret({ title: `New signing secret for ${hook?.url ?? 'the endpoint'}`, secret });
      onChanged();
    });

  return (
    <section className="card wide" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries to {hook ? <span className="url">{hook.url}</span> : '…'}</h2>
      <FormError message={error} />
      {hook && (
        <dl className="facts">
          <dt>Events</dt>
          <dd>{hook.events.join(', ')}</dd>
          <dt>Signing secret</dt>
          <dd>{hook.masked_secret ? <code>{hook.masked_secret}</code> : <span className="muted">Unreadable with this server's key: rotate it.</span>}</dd>
        </dl>
      )}
      <div className="action-row toolbar">
        {canChange && (
          <button type="button" className="primary" onClick={() => change(() => api('POST', `${path}/test`))}>
            Send test event
          </button>
        )}
        {canChange && (
          <ConfirmButton
            label="Rotate secret"
            ariaLabel={`Rotate secret of ${hook?.url ?? 'the endpoint'}`}
            warning="Requests are signed with a new secret at once: the old one no longer verifies."
            confirmLabel="Rotate secret now"
            onConfirm={rotate}
          />
        )}
        <button type="button" className="secondary" onClick={reload}>
          Refresh
        </button>
        <button type="button" className="link" onClick={onClose}>
          Close
        </button>
      </div>
      {hook && hook.deliveries.length === 0 && (
        <p className="muted">No deliveries yet. {canChange ? 'Send a test event to see one here.' : 'Events show here once they are sent.'}</p>
      )}
      {hook && hook.deliveries.length > 0 && (
        <table className="table deliveries">
          <caption className="visually-hidden">The latest 20 deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Response</th>
              <th scope="col">Next attempt</th>
              <th scope="col">Created</th>
              {canChange && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {hook.deliveries.map((d) => (
              <tr key={d.id}>
                <td data-label="Event">{d.event_type}</td>
                <td data-label="Status">
                  <span className={`badge badge-${d.state}`}>{d.state}</span>
                </td>
                <td data-label="Attempts">{d.attempts}</td>
                <td data-label="Response">{response(d)}</td>
                <td data-label="Next attempt">{nextAttempt(d)}</td>
                <td data-label="Created">{when(d.created_at)}</td>
                {canChange && (
                  <td className="actions">
                    <button type="button" className="secondary" aria-label={`Retry the ${d.event_type} delivery of ${when(d.created_at)}`} onClick={() => change(() => api('POST', `${path}/deliveries/${d.id}/retry`))}>
                      Retry
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
