import { ConflictError, NotFoundError, ValidationError } from '../lib/errors.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import type { MemberRole } from '../db/schema.js';
import { newId, nowIso } from '../lib/ids.js';
import type { Store } from '../db/store.js';
import { isValidAddress } from '../lib/email-address.js';
import { checkNewPassword, hashPassword } from './password.js';

export const MEMBER_ROLES: readonly MemberRole[] = ['admin', 'developer', 'viewer'];

export interface NewUser {
  email: string;
  password: string;
  /** A workspace to join at once, with `role`. */
  workspaceId?: string | undefined;
  role?: string | undefined;
}

export interface CreatedUser {
  id: string;
  email: string;
  memberships: Array<{ workspace_id: string; role: MemberRole }>;
}

/** A new account's address as given, trimmed, or the reason it is refused. */
export function accountEmailOf(raw: string): string {
  const email = raw.trim();
  if (!isValidAddress(email)) throw new ValidationError('email must be an e-mail address, such as ada@example.com');
  return email;
}

/** A role as given, or the reason it is refused. */
export function roleOf(role: string): MemberRole {
  if (!(MEMBER_ROLES as readonly string[]).includes(role)) throw new ValidationError(`role must be one of ${MEMBER_ROLES.join(', ')}`);
  return role as MemberRole;
}

export function createUserService(store: Store) {
  return {
    /** Who a signed-in user is, as the dashboard shows them. */
    async profile(userId: string): Promise<{ id: string; email: string }> {
      const user = await store.users.findById(userId);
      if (!user) throw new NotFoundError('User not found');
      return { id: user.id, email: user.email };
    },

    /** The user's role in a workspace, or undefined when they are not a member. */
    roleIn(userId: string, workspaceId: string) {
      return store.users.roleIn(userId, workspaceId);
    },

    /** The workspaces a user belongs to, with the role in each. */
    workspacesOf(userId: string) {
      return store.users.workspacesOf(userId);
    },

    /** Every user and their memberships, oldest first: what `mailroom user list` prints. */
    list() {
      return store.users.listWithMemberships();
    },

    /**
     * An operator's reset of a user's password (the user forgot it): the new
     * one must meet the rule every password meets, and every session of the
     * user ends, so whoever held one signs in again with the new password.
     */
    async resetPassword(rawEmail: string, password: string): Promise<{ id: string; email: string; ended_sessions: number }> {
      const user = await store.users.findByEmail(rawEmail.trim());
      if (!user) throw new NotFoundError(`No user with the e-mail address ${rawEmail.trim()}`);
      checkNewPassword(password);
      const passwordHash = await hashPassword(password);
      return store.transaction(async (repos) => {
        await repos.users.setPasswordHash(user.id, passwordHash, nowIso());
        return { id: user.id, email: user.email, ended_sessions: await repos.sessions.deleteOthers(user.id, undefined) };
      });
    },

    /**
     * A new user, and their membership of a workspace when one is named (with
     * its role: both or neither). The same e-mail address in another case is
     * the same user, and is refused.
     */
    async create(input: NewUser): Promise<CreatedUser> {
      const email = accountEmailOf(input.email);
      checkNewPassword(input.password);
      if ((input.workspaceId === undefined) !== (input.role === undefined)) throw new ValidationError('A workspace and a role go together: give both or neither');
      const role = input.role === undefined ? undefined : roleOf(input.role);
      if (input.workspaceId !== undefined && !(await store.workspaces.findById(input.workspaceId))) {
        throw new ValidationError(`No workspace ${input.workspaceId}`);
      }
      // Hashed before the transaction: a fifth of a second of scrypt should hold no connection.
      const passwordHash = await hashPassword(input.password);
      const taken = () => new ConflictError(`A user with the e-mail address ${email} exists`);
      try {
        return await store.transaction(async (repos) => {
          if (await repos.users.findByEmail(email)) throw taken();
          const now = nowIso();
          const user = { id: newId('usr'), email, password_hash: passwordHash, created_at: now, updated_at: now };
          await repos.users.insert(user);
          if (input.workspaceId !== undefined) await repos.users.addMember({ workspace_id: input.workspaceId, user_id: user.id, role: role!, created_at: now });
          return { id: user.id, email, memberships: input.workspaceId === undefined ? [] : [{ workspace_id: input.workspaceId, role: role! }] };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw taken(); // a second request with the same address got there first
        throw error;
      }
    },
  };
}
