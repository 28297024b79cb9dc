import { ConflictError, NotFoundError } from '../lib/errors.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import type { MemberRole } from '../db/schema.js';
import { newId } from '../lib/ids.js';
import type { Store } from '../db/store.js';
import { newSecretToken, secretHash } from '../lib/secret-token.js';
import type { InvitationPreview, PendingInvitation } from './invitations-repository.js';
import { checkNewPassword, hashPassword } from './password.js';
import { accountEmailOf, roleOf } from './user-service.js';

/** How long an invitation link works (issue 14). */
export const INVITATION_TTL_MS = 7 * 86_400_000;

/** The one answer to a link that is unknown, used, revoked or expired: which of them is nobody's business. */
export const INVITATION_REFUSED = 'This invitation link cannot be used: it was used or revoked, or it has expired. Ask an admin of the workspace for a new one';
export const ALREADY_MEMBER = 'You are a member of this workspace already: the link stays unused, for someone else';
export const INVITATION_NOT_FOUND = 'Invitation not found';

/** A new invitation: the link's path carries the token, shown this once. */
export interface CreatedInvitation extends PendingInvitation {
  path: string;
}

export interface NewAccount {
  token: string;
  email: string;
  password: string;
}

/**
 * Invitations to a workspace (issue 14): single-use links, valid for 7 days
 * and bound to no address, that admins make and copy. Whoever opens one joins
 * with its role, signed in or with a new account. A refused accept (already
 * a member, an address that has a user) leaves the link unused.
 */
export function createInvitationService(store: Store, now: () => Date = () => new Date()) {
  const usable = async (token: string) => {
    const preview = await store.invitations.findUsable(secretHash(token), now().toISOString());
    if (!preview) throw new NotFoundError(INVITATION_REFUSED);
    return preview;
  };

  return {
    async create(workspaceId: string, createdBy: string, rawRole: string): Promise<CreatedInvitation> {
      const role = roleOf(rawRole);
      const inviter = await store.users.findById(createdBy);
      if (!inviter) throw new NotFoundError('User not found');
      const token = newSecretToken();
      const at = now();
      const invitation = {
        id: newId('inv'),
        workspace_id: workspaceId,
        role,
        token_hash: secretHash(token),
        created_by: createdBy,
        created_at: at.toISOString(),
        expires_at: new Date(at.getTime() + INVITATION_TTL_MS).toISOString(),
        accepted_at: null,
        accepted_by: null,
        revoked_at: null,
        revoked_by: null,
      };
      await store.invitations.insert(invitation);
      const { id, created_at, expires_at } = invitation;
      return { id, role, invited_by: inviter.email, created_at, expires_at, path: `/invite?token=${token}` };
    },

    listPending: (workspaceId: string) => store.invitations.pendingOf(workspaceId, now().toISOString()),

    async revoke(workspaceId: string, id: string, revokedBy: string): Promise<{ id: string; revoked: true }> {
      if (!(await store.invitations.revoke(workspaceId, id, revokedBy, now().toISOString()))) throw new NotFoundError(INVITATION_NOT_FOUND);
      return { id, revoked: true };
    },

    /** What the link offers, for its page: the workspace's name, the role, who invited, until when. */
    preview: (token: string): Promise<InvitationPreview> => usable(token),

    /** The signed-in user joins with the invitation's role. */
    async accept(token: string, userId: string): Promise<{ workspace_id: string; role: MemberRole }> {
      try {
        return await store.transaction(async (repos) => {
          const at = now().toISOString();
          const taken = await repos.invitations.take(secretHash(token), userId, at);
          if (!taken) throw new NotFoundError(INVITATION_REFUSED);
          if (await repos.users.roleIn(userId, taken.workspace_id)) throw new ConflictError(ALREADY_MEMBER);
          await repos.users.addMember({ workspace_id: taken.workspace_id, user_id: userId, role: taken.role, created_at: at });
          return taken;
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError(ALREADY_MEMBER); // joined by another link at the same moment
        throw error;
      }
    },

    /**
     * A new account that joins with the invitation's role: the user, the
     * membership and the use of the link in one transaction, so a refused
     * link leaves no account behind. The caller opens the session.
     */
    async acceptWithAccount(input: NewAccount): Promise<{ user: { id: string; email: string }; workspace_id: string; role: MemberRole }> {
      const email = accountEmailOf(input.email);
      checkNewPassword(input.password);
      const taken = () => new ConflictError(`A user with the e-mail address ${email} exists: sign in to join with this link`);
      // Refusals that need no scrypt work come first: a dead link, an address that has a user.
      await usable(input.token);
      if (await store.users.findByEmail(email)) throw taken();
      const passwordHash = await hashPassword(input.password);
      try {
        return await store.transaction(async (repos) => {
          const at = now().toISOString();
          if (await repos.users.findByEmail(email)) throw taken(); // signed up since the check above
          const user = { id: newId('usr'), email, password_hash: passwordHash, created_at: at, updated_at: at };
          await repos.users.insert(user);
          const invitation = await repos.invitations.take(secretHash(input.token), user.id, at);
          if (!invitation) throw new NotFoundError(INVITATION_REFUSED);
          await repos.users.addMember({ workspace_id: invitation.workspace_id, user_id: user.id, role: invitation.role, created_at: at });
          return { user: { id: user.id, email }, ...invitation };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw taken(); // the same address signed up at the same moment
        throw error;
      }
    },
  };
}
