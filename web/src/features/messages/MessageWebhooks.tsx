import { useState } from 'react';
import { FormError } from '../../components/FormError';
import { RoleNote } from '../../components/RoleNote';
import { api } from '../../lib/api';
import type { Role } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { STATUS_BADGE, when, type MessageWebhookDelivery } from './types';

interface MessageWebhooksProps {
  workspaceId: string;
  deliveries: MessageWebhookDelivery[];
  /** The signed-in user's: admins and developers retry. */
  role: Role;
  /** A retry was made: the message's history is read again. */
  onRetried: () => void;
}

function nextAttempt(d: MessageWebhookDelivery): string {
  if (!d.next_attempt_at) return '—';
  return Date.parse(d.next_attempt_at) <= Date.now() ? 'Now' : when(d.next_attempt_at);
}

/** The webhook deliveries the message's events caused, oldest first, each with a retry for admins and developers. */
export function MessageWebhooks({ workspaceId, deliveries, role, onRetried }: MessageWebhooksProps) {
  const canChange = role !== 'viewer';
  // The endpoints' addresses, to name them; a delivery of one deleted since shows its id.
  const { data: hooks } = useResource<Array<{ id: string; url: string }>>(`/workspaces/${workspaceId}/webhooks`);
  const [error, setError] = useState<string>();
  const urlOf = (id: string) => hooks?.find((h) => h.id === id)?.url ?? id;

  async function retry(d: MessageWebhookDelivery) {
    setError(undefined);
    try {
      await api('POST', `/workspaces/${workspaceId}/webhooks/${d.webhook_id}/deliveries/${d.id}/retry`);
    } catch (e) {
      setError((e as Error).message);
    }
    onRetried();
  }

  return (
    <section className="card wide" aria-labelledby="message-webhooks-title">
      <h2 id="message-webhooks-title">Webhook deliveries</h2>
      <FormError message={error} />
      {!canChange && deliveries.length > 0 && <RoleNote role={role}>admins and developers retry deliveries</RoleNote>}
      {deliveries.length === 0 && <p className="muted">None: no endpoint of this workspace was sent an event of this message.</p>}
      {deliveries.length > 0 && (
        <table className="table message-hooks">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Endpoint</th>
              <th scope="col">Status</th>
              <th scope="col">Response</th>
              <th scope="col">Next attempt</th>
              {canChange && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.id}>
                <td data-label="Event">{d.event}</td>
                <td data-label="Endpoint">
                  <span className="url" title={urlOf(d.webhook_id)}>
                    {urlOf(d.webhook_id)}
                  </span>
                </td>
                <td data-label="Status">
                  <div>
                    <span className={`badge badge-${STATUS_BADGE[d.status] ?? 'pending'}`}>{d.status}</span>
                    <span className="cell-detail">
                      {d.attempts} {d.attempts === 1 ? 'attempt' : 'attempts'}
                    </span>
                  </div>
                </td>
                <td data-label="Response">{d.last_response_status ?? '—'}</td>
                <td data-label="Next attempt">{nextAttempt(d)}</td>
                {canChange && (
                  <td className="actions">
                    <button type="button" className="secondary" aria-label={`Retry the ${d.event} delivery to ${urlOf(d.webhook_id)}`} onClick={() => void retry(d)}>
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
