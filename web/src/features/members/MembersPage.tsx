import { ConfirmButton } from '../../components/ConfirmButton';
import { FormError } from '../../components/FormError';
import { api } from '../../lib/api';
import type { Role, WorkspacePageProps } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { InvitationsSection } from './InvitationsSection';

interface Member {
  user_id: string;
  email: string;
  role: Role;
  joined_at: string;
}

const ROLES: Role[] = ['admin', 'developer', 'viewer'];

/** Who is in the workspace; admins change roles and remove members (never the last admin: the server says so). */
export function MembersPage({ workspaceId, role, userId }: WorkspacePageProps) {
  const isAdmin = role === 'admin';
  const path = `/workspaces/${workspaceId}/members`;
  const { data: members, error, change: act } = useResource<Member[]>(path);

  return (
    <>
      <h1>Members</h1>
      <section className="card wide" aria-labelledby="members-title">
        <h2 id="members-title">People in this workspace</h2>
        <FormError message={error} />
        {members && (
          <table className="table">
            <thead>
              <tr>
                <th scope="col">E-mail address</th>
                <th scope="col">Role</th>
                <th scope="col">Member since</th>
                {isAdmin && <th scope="col"><span className="visually-hidden">Actions</span></th>}
              </tr>
            </thead>
            <tbody>
              {members.map((m) => (
                <tr key={m.user_id}>
                  <td data-label="E-mail">
                    {m.email}
                    {m.user_id === userId && <span className="muted"> (you)</span>}
                  </td>
                  <td data-label="Role">
                    {isAdmin ? (
                      <select aria-label={`Role of ${m.email}`} value={m.role} onChange={(e) => act(() => api('PATCH', `${path}/${m.user_id}`, { role: e.target.value }))}>
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    ) : (
                      m.role
                    )}
                  </td>
                  <td data-label="Since">{new Date(m.joined_at).toLocaleDateString()}</td>
                  {isAdmin && (
                    <td className="actions">
                      <ConfirmButton
                        label="Remove"
                        ariaLabel={`Remove ${m.email}`}
                        warning="They lose access to this workspace."
                        confirmLabel={`Remove ${m.email}`}
                        onConfirm={() => act(() => api('DELETE', `${path}/${m.user_id}`))}
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {isAdmin && <InvitationsSection workspaceId={workspaceId} />}
    </>
  );
}
