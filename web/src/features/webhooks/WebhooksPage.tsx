import { useState } from 'react';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormError } from '../../components/FormError';
import { RoleNote } from '../../components/RoleNote';
import { api } from '../../lib/api';
import type { WorkspacePageProps } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { SecretNotice } from './SecretNotice';
import { WebhookDeliveries } from './WebhookDeliveries';
import { WebhookForm } from './WebhookForm';
import { EVENT_TYPES, type ShownSecret, type WebhookSummary } from './types';

function successRate(w: WebhookSummary) {
  const { finished, delivered } = w.recent_deliveries;
  if (w.success_rate === null) return <span className="muted">None finished yet</span>;
  // One element: on a phone a cell is a flex row, and the detail belongs under the figure.
  return (
    <span>
      {Math.round(w.success_rate * 100)}%{' '}
      <span className="cell-detail">
        {delivered} of the last {finished} delivered
      </span>
    </span>
  );
}

const eventsOf = (w: WebhookSummary) => (w.events.length === EVENT_TYPES.length && EVENT_TYPES.every((e) => w.events.includes(e.type)) ? 'All events' : w.events.join(', '));

/**
 * A workspace's webhook endpoints: everyone sees them, their success rate and
 * deliveries; admins and developers add them (the secret shown once), send
 * test events, retry deliveries, rotate secrets and delete.
 */
export function WebhooksPage({ workspaceId, role }: WorkspacePageProps) {
  const canChange = role !== 'viewer';
  const path = `/workspaces/${workspaceId}/webhooks`;
  const [shown, setShown] = useState<ShownSecret>();
  const [open, setOpen] = useState<string>();
  const { data: hooks, error, reload, change } = useResource<WebhookSummary[]>(path);

  async function create(input: { url: string; events: string[] }) {
    const created = await api<{ id: string; url: string; secret: string }>('POST', path, input);
    setShown({ title: `Endpoint ${created.url} added`, secret: created.secret });
    setOpen(created.id);
    reload();
  }

  const remove = (id: string) =>
    change(async () => {
      await api('DELETE', `${path}/${id}`);
      if (open === id) setOpen(undefined);
    });

  return (
    <>
      <h1>Webhooks</h1>
      {!canChange && <RoleNote role={role}>admins and developers add endpoints, send test events, retry deliveries, rotate secrets and delete endpoints</RoleNote>}
      {shown && <SecretNotice shown={shown} onDone={() => setShown(undefined)} />}
      {canChange && <WebhookForm onSubmit={create} />}
      {open && (
        <WebhookDeliveries key={open} path={`${path}/${open}`} canChange={canChange} onSecret={setShown} onChanged={reload} onClose={() => setOpen(undefined)} />
      )}
      <section className="card wide" aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Endpoints of this workspace</h2>
        <FormError message={error} />
        {hooks && hooks.length === 0 && (
          <p className="muted">
            No webhook endpoints yet. {canChange ? 'Add one to have events posted to your server as they happen.' : 'An admin or developer can add one.'}
          </p>
        )}
        {hooks && hooks.length > 0 && (
          <table className="table webhooks">
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Success rate</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {hooks.map((w) => (
                <tr key={w.id}>
                  <td data-label="Endpoint">
                    <span>
                      <span className="url" title={w.url}>
                        {w.url}
                      </span>
                      <span className="cell-detail">{eventsOf(w)}</span>
                    </span>
                  </td>
                  <td data-label="Success rate">{successRate(w)}</td>
                  <td data-label="Added">{new Date(w.created_at).toLocaleDateString()}</td>
                  <td className="actions">
                    <span className="action-row">
                      <button type="button" className="secondary" aria-label={`Deliveries to ${w.url}`} onClick={() => setOpen(w.id)}>
                        Deliveries
                      </button>
                      {canChange && (
                        <ConfirmButton
                          label="Delete"
                          ariaLabel={`Delete ${w.url}`}
                          warning="Nothing more is posted to it, and its deliveries are deleted."
                          confirmLabel="Delete endpoint"
                          onConfirm={() => remove(w.id)}
                        />
                      )}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
