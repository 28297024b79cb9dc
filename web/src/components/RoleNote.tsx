import type { Role } from '../lib/session';

interface RoleNoteProps {
  /** The signed-in user's role in the workspace. */
  role: Role;
  /** Who does what this page leaves out for `role`: "admins and developers add, verify, route and delete domains". */
  children: string;
}

/**
 * Why a page shows no control to change what it lists: the server would
 * refuse the user's role (people/roles.ts), so the controls are left out and
 * this sentence says who can use them instead.
 */
export function RoleNote({ role, children }: RoleNoteProps) {
  return (
    <p className="muted role-note">
      You are {role === 'admin' ? 'an' : 'a'} {role} in this workspace: {children}.
    </p>
  );
}
