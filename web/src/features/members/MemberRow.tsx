import { useState } from 'react';
import { ConfirmButton } from '../../components/ConfirmButton';
import type { Role } from '../../lib/session';

export interface Member {
  user_id: string;
  email: string;
  role: Role;
  joined_at: string;
}

const ROLES: Role[] = ['admin', 'developer', 'viewer'];

interface MemberRowProps {
  member: Member;
  /** The signed-in user is an admin here: the row has the role select and Remove. */
  canManage: boolean;
  /** The row is the signed-in user's own. */
  isSelf: boolean;
  /** The member is the workspace's only admin, whom the server neither demotes nor removes (409). */
  lastAdmin: boolean;
  onRole: (role: Role) => Promise<void>;
  onRemove: () => Promise<void>;
}

/**
 * One member. For an admin, the role select and Remove, except where the
 * server would refuse them: the only admin's are disabled, with the reason
 * beside them (and named by aria-describedby). Demoting or removing oneself is
 * asked first, since it takes the admin's own access away at once.
 */
export function MemberRow({ member: m, canManage, isSelf, lastAdmin, onRole, onRemove }: MemberRowProps) {
  const [asked, setAsked] = useState<Role>();
  const reasonId = `last-admin-${m.user_id}`;
  const describedBy = lastAdmin ? reasonId : undefined;

  function choose(role: Role) {
    if (isSelf && m.role === 'admin' && role !== 'admin') setAsked(role);
    else void onRole(role);
  }

  return (
    <tr>
      <td data-label="E-mail">
        {/* One flex item on a phone, where each cell is a row of label and value. */}
        <span className="url">
          {m.email}
          {isSelf && <span className="muted"> (you)</span>}
        </span>
      </td>
      <td data-label="Role">
        {canManage ? (
          <select aria-label={`Role of ${m.email}`} value={m.role} disabled={lastAdmin} aria-describedby={describedBy} onChange={(e) => choose(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        ) : (
          m.role
        )}
        {asked && (
          <span className="confirm" role="group" aria-label={`Make yourself ${asked}?`}>
            <span>You stop being an admin of this workspace at once.</span>
            <button type="button" className="danger" onClick={() => void onRole(asked).finally(() => setAsked(undefined))}>
              Make me {asked}
            </button>
            <button type="button" className="link" onClick={() => setAsked(undefined)}>
              Cancel
            </button>
          </span>
        )}
      </td>
      <td data-label="Since">{new Date(m.joined_at).toLocaleDateString()}</td>
      {canManage && (
        <td className="actions">
          {lastAdmin ? (
            <span className="action-row member-locked">
              <button type="button" className="secondary" disabled aria-label={`Remove ${m.email}`} aria-describedby={reasonId}>
                Remove
              </button>
              <span id={reasonId} className="muted small">
                The only admin: make someone else admin first.
              </span>
            </span>
          ) : (
            <ConfirmButton
              label="Remove"
              ariaLabel={`Remove ${m.email}`}
              warning={isSelf ? 'You lose access to this workspace at once.' : 'They lose access to this workspace.'}
              confirmLabel={isSelf ? 'Remove myself' : `Remove ${m.email}`}
              onConfirm={onRemove}
            />
          )}
        </td>
      )}
    </tr>
  );
}
