import { FormError } from '../../components/FormError';
import { RoleNote } from '../../components/RoleNote';
import { api } from '../../lib/api';
import type { Role, WorkspacePageProps } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { InvitationsSection } from './InvitationsSection';
import { MemberRow, type Member } from './MemberRow';

/**
 * Who is in the workspace. Admins change roles and remove members, never the
 * only admin (the server keeps one, and the page says so rather than offer it);
 * a change to one's own membership is handed to the shell, which reads the
 * session again (a new role, or a workspace left).
 */
export function MembersPage({ workspaceId, role, userId, onMembershipChanged }: WorkspacePageProps) {
  const isAdmin = role === 'admin';
  const path = `/workspaces/${workspaceId}/members`;
  const { data: members, error, setError, change } = useResource<Member[]>(path);
  const admins = members?.filter((m) => m.role === 'admin') ?? [];

  const setRole = (m: Member, next: Role) =>
    change(async () => {
      await api('PATCH', `${path}/${m.user_id}`, { role: next });
      if (m.user_id === userId) onMembershipChanged();
    });

  async function remove(m: Member) {
    if (m.user_id !== userId) return change(() => api('DELETE', `${path}/${m.user_id}`));
    // Not read again: the list is no longer ours to read once we are out.
    try {
      await api('DELETE', `${path}/${m.user_id}`);
      onMembershipChanged();
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <>
      <h1>Members</h1>
      {!isAdmin && <RoleNote role={role}>admins change roles, remove members and invite people</RoleNote>}
      <section className="card wide" aria-labelledby="members-title">
        <h2 id="members-title">People in this workspace</h2>
        <FormError message={error} />
        {members && (
          <table className="table members">
            <thead>
              <tr>
                <th scope="col">E-mail address</th>
                <th scope="col">Role</th>
                <th scope="col">Member since</th>
                {isAdmin && (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {members.map((m) => (
                <MemberRow
                  key={m.user_id}
                  member={m}
                  canManage={isAdmin}
                  isSelf={m.user_id === userId}
                  lastAdmin={m.role === 'admin' && admins.length === 1}
                  onRole={(next) => setRole(m, next)}
                  onRemove={() => remove(m)}
                />
              ))}
            </tbody>
          </table>
        )}
      </section>
      {isAdmin && <InvitationsSection workspaceId={workspaceId} />}
    </>
  );
}
