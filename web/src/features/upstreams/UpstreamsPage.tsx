import { useState } from 'react';
import { FormError } from '../../components/FormError';
import { RoleNote } from '../../components/RoleNote';
import { TableHead } from '../../components/TableHead';
import { api } from '../../lib/api';
import type { WorkspacePageProps } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { TestOutcome } from './TestOutcome';
import { UpstreamForm } from './UpstreamForm';
import { COLUMNS, UpstreamRow } from './UpstreamRow';
import { useConnectionTests } from './use-connection-tests';
import type { Upstream } from './types';
import './upstreams.css';

/**
 * A workspace's upstreams: everyone sees where each sends, its health, its
 * last hour and the domains routed through it; admins and developers add one
 * (its connection tested at once), test, change and delete it.
 */
export function UpstreamsPage({ workspaceId, role }: WorkspacePageProps) {
  const canChange = role !== 'viewer';
  const path = `/workspaces/${workspaceId}/upstreams`;
  const { data: upstreams, error, reload, change } = useResource<Upstream[]>(path);
  const tests = useConnectionTests(path);
  /** The upstream just added, whose test shows beside the form rather than under its row. */
  const [added, setAdded] = useState<{ id: string; name: string }>();
  const [editing, setEditing] = useState<Upstream>();

  async function create(body: Record<string, unknown>) {
    const created = await api<Upstream>('POST', path, body);
    setAdded({ id: created.id, name: created.name });
    void reload();
    void tests.run(created.id);
  }

  async function save(body: Record<string, unknown>) {
    if (!editing) return;
    await api<Upstream>('PATCH', `${path}/${editing.id}`, body);
    tests.forget(editing.id);
    await reload();
    setEditing(undefined);
  }

  const addedOutcome = added && tests.outcomes[added.id];
  const addedFailed = addedOutcome !== undefined && addedOutcome.state !== 'testing' && !(addedOutcome.state === 'done' && addedOutcome.result.ok);
  return (
    <>
      <h1>Upstreams</h1>
      {!canChange && <RoleNote role={role}>admins and developers add, test, change and delete upstreams</RoleNote>}
      <p className="muted intro">
        The SMTP relays and Amazon SES accounts this workspace's domains send through. Each domain's route, set on the Domains page, names them in the
        order they are tried; a domain without one sends through the server's upstream.
      </p>
      {added && addedOutcome && (
        <section className={`card ${addedFailed ? 'warning-card' : 'notice-card'}`} aria-labelledby="added-title">
          <h2 id="added-title">Added {added.name}</h2>
          <TestOutcome name={added.name} outcome={addedOutcome} />
          {addedFailed && <p className="muted small">It is saved all the same: correct it with Edit in its row, then test it again, or delete it.</p>}
          <button type="button" className="link" onClick={() => setAdded(undefined)}>
            Done
          </button>
        </section>
      )}
      {canChange && editing && <UpstreamForm key={editing.id} upstream={editing} onSubmit={save} onCancel={() => setEditing(undefined)} />}
      {canChange && !editing && <UpstreamForm onSubmit={create} />}
      <section className="card wide" aria-labelledby="upstreams-title">
        <h2 id="upstreams-title">Upstreams of this workspace</h2>
        <FormError message={error} />
        {upstreams && upstreams.length === 0 && (
          <p className="muted">No upstreams yet: every domain sends through the server's. {canChange ? 'Add one to route a domain through it.' : 'An admin or developer can add one.'}</p>
        )}
        {upstreams && upstreams.length > 0 && (
          <table className="table upstreams">
            <TableHead columns={COLUMNS} actions={canChange} />
            <tbody>
              {upstreams.map((u) => (
                <UpstreamRow
                  key={u.id}
                  upstream={u}
                  canChange={canChange}
                  // The one just added shows its test in the card above until that is done with.
                  outcome={added?.id === u.id ? undefined : tests.outcomes[u.id]}
                  onTest={() => void tests.run(u.id)}
                  onEdit={() => setEditing(u)}
                  onDelete={() =>
                    change(async () => {
                      await api('DELETE', `${path}/${u.id}`);
                      if (editing?.id === u.id) setEditing(undefined);
                    })
                  }
                />
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
