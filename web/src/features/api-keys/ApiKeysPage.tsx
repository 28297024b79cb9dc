import { useState } from 'react';
import { ConfirmButton } from '../../components/ConfirmButton';
import { CopyButton } from '../../components/CopyButton';
import { FormError } from '../../components/FormError';
import { RoleNote } from '../../components/RoleNote';
import { api } from '../../lib/api';
import type { WorkspacePageProps } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { CreateKeyForm, PERMISSION_LABELS, type NewKey, type Permission } from './CreateKeyForm';

interface ApiKey {
  id: string;
  name: string;
  masked_key: string;
  created_at: string;
  last_used_at: string | null;
  permission: Permission;
  domain_id: string | null;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'Never');

/** A workspace's API keys: everyone sees them masked; admins and developers create (the key shown once) and delete. */
export function ApiKeysPage({ workspaceId, role }: WorkspacePageProps) {
  const canChange = role !== 'viewer';
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const path = `/workspaces/${workspaceId}/api-keys`;
  const { data: keys, error, reload, change } = useResource<ApiKey[]>(path);
  const { data: domains } = useResource<{ id: string; domain: string }[]>(`/workspaces/${workspaceId}/domains`);
  // A key restricted to a domain deleted since sends from nowhere: say so rather than show an id.
  const access = (key: ApiKey) =>
    key.domain_id ? `${PERMISSION_LABELS[key.permission]}, from ${domains?.find((d) => d.id === key.domain_id)?.domain ?? 'a deleted domain'}` : PERMISSION_LABELS[key.permission];

  async function create(key: NewKey) {
    setCreated(await api<{ name: string; key: string }>('POST', path, key));
    reload();
  }

  return (
    <>
      <h1>API keys</h1>
      {!canChange && <RoleNote role={role}>admins and developers create and delete API keys</RoleNote>}
      {created && (
        <section className="card notice-card" aria-labelledby="new-key-title">
          <h2 id="new-key-title">Key “{created.name}” created</h2>
          <p>Copy it now: it is not shown again.</p>
          <div className="secret-row">
            <code className="secret">{created.key}</code>
            <CopyButton value={created.key} />
          </div>
          <button type="button" className="link" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </section>
      )}
      {canChange && <CreateKeyForm domains={domains ?? []} onSubmit={create} />}
      <section className="card wide" aria-labelledby="keys-title">
        <h2 id="keys-title">Keys of this workspace</h2>
        <FormError message={error} />
        {keys && keys.length === 0 && <p className="muted">No API keys yet. {canChange ? 'Create one to send mail with the API.' : 'An admin or developer can create one.'}</p>}
        {keys && keys.length > 0 && (
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Access</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                {canChange && <th scope="col"><span className="visually-hidden">Actions</span></th>}
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td data-label="Name">{key.name}</td>
                  <td data-label="Key">
                    <code>{key.masked_key}</code>
                  </td>
                  <td data-label="Access">{access(key)}</td>
                  <td data-label="Created">{when(key.created_at)}</td>
                  <td data-label="Last used">{when(key.last_used_at)}</td>
                  {canChange && (
                    <td className="actions">
                      <ConfirmButton
                        label="Delete"
                        ariaLabel={`Delete ${key.name}`}
                        warning="Requests with it will be refused at once."
                        confirmLabel={`Delete “${key.name}”`}
                        onConfirm={() => change(() => api('DELETE', `${path}/${key.id}`))}
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
