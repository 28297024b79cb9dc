import { useId, useState, type FormEvent } from 'react';
import { ConfirmButton } from '../../components/ConfirmButton';
import { CopyButton } from '../../components/CopyButton';
import { FormError } from '../../components/FormError';
import { api } from '../../lib/api';
import type { Role } from '../../lib/session';
import { useResource } from '../../lib/use-resource';

interface Invitation {
  id: string;
  role: Role;
  invited_by: string;
  created_at: string;
  expires_at: string;
}

const ROLES: Role[] = ['viewer', 'developer', 'admin'];
const when = (iso: string) => new Date(iso).toLocaleString();

/**
 * For admins: invitation links (one person each, 7 days, once), made with a
 * role and copied from here, since the server keeps no copy of the link; and
 * the pending ones, each revocable.
 */
export function InvitationsSection({ workspaceId }: { workspaceId: string }) {
  const roleId = useId();
  const path = `/workspaces/${workspaceId}/invitations`;
  const { data: pending, error, setError, reload, change } = useResource<Invitation[]>(path);
  const [role, setRole] = useState<Role>('viewer');
  const [created, setCreated] = useState<{ role: Role; link: string }>();

  async function create(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      const made = await api<Invitation & { path: string }>('POST', path, { role });
      setCreated({ role: made.role, link: `${window.location.origin}${made.path}` });
      reload();
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <section className="card wide invite-section" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite someone</h2>
      <p className="muted">An invitation is a link for one person: whoever opens it joins this workspace with the role you choose, signing in or creating an account.</p>
      <FormError message={error} />
      <form className="inline-form" onSubmit={create} aria-labelledby="invite-title">
        <div className="row">
          <div className="field">
            <label htmlFor={roleId}>Role</label>
            <select id={roleId} value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="primary">
            Create invitation link
          </button>
        </div>
      </form>
      {created && (
        <section className="invite-link" aria-labelledby="invite-link-title">
          <h3 id="invite-link-title">Invitation link for a {created.role}</h3>
          <div className="secret-row">
            <code className="secret">{created.link}</code>
            <CopyButton value={created.link} />
          </div>
          <p>Valid for 7 days, usable once. Copy it now and send it to them: it is not shown again.</p>
          <button type="button" className="link" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </section>
      )}
      <h3>Pending invitations</h3>
      {pending && pending.length === 0 && <p className="muted">No pending invitations.</p>}
      {pending && pending.length > 0 && (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">Invited by</th>
              <th scope="col">Expires</th>
              <th scope="col"><span className="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {pending.map((i) => (
              <tr key={i.id}>
                <td data-label="Role">{i.role}</td>
                <td data-label="Invited by">{i.invited_by}</td>
                <td data-label="Expires">{when(i.expires_at)}</td>
                <td className="actions">
                  <ConfirmButton
                    label="Revoke"
                    ariaLabel={`Revoke the ${i.role} invitation expiring ${when(i.expires_at)}`}
                    warning="The link stops working at once."
                    confirmLabel="Revoke invitation"
                    onConfirm={() => change(() => api('DELETE', `${path}/${i.id}`))}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
