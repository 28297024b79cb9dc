import type { Db } from '../db/database.js';
import type { InvitationsTable, MemberRole } from '../db/schema.js';

/** A pending invitation as the workspace's admins see it: never its token, nor its hash. */
export interface PendingInvitation {
  id: string;
  role: MemberRole;
  invited_by: string;
  created_at: string;
  expires_at: string;
}

/** What the link's page shows before anyone signs in. */
export interface InvitationPreview {
  workspace_name: string;
  role: MemberRole;
  invited_by: string;
  expires_at: string;
}

/** Workspace invitations, by the hash of their link's token. "Usable" is one condition, written once below. */
export function createInvitationsRepository(db: Db) {
  const usable = (at: string) =>
    db
      .selectFrom('invitations as i')
      .innerJoin('users as u', 'u.id', 'i.created_by')
      .where('i.accepted_at', 'is', null)
      .where('i.revoked_at', 'is', null)
      .where('i.expires_at', '>', at);

  return {
    async insert(invitation: InvitationsTable): Promise<void> {
      await db.insertInto('invitations').values(invitation).execute();
    },

    /** The workspace's invitations not yet accepted, revoked or expired at `at`, newest first. */
    async pendingOf(workspaceId: string, at: string): Promise<PendingInvitation[]> {
      return usable(at)
        .select(['i.id as id', 'i.role as role', 'u.email as invited_by', 'i.created_at as created_at', 'i.expires_at as expires_at'])
        .where('i.workspace_id', '=', workspaceId)
        .orderBy('i.created_at', 'desc')
        .orderBy('i.id', 'desc')
        .execute();
    },

    /** The invitation a token opens, if it is usable at `at`. */
    async findUsable(tokenHash: string, at: string): Promise<InvitationPreview | undefined> {
      return usable(at)
        .innerJoin('workspaces as w', 'w.id', 'i.workspace_id')
        .select(['w.name as workspace_name', 'i.role as role', 'u.email as invited_by', 'i.expires_at as expires_at'])
        .where('i.token_hash', '=', tokenHash)
        .executeTakeFirst();
    },

    /**
     * Uses the invitation up for `userId`, if it is usable at `at`: one
     * conditional UPDATE, so of two transactions taking the same one, the
     * second (PostgreSQL re-reads the row once the first commits) finds
     * nothing to take.
     */
    async take(tokenHash: string, userId: string, at: string): Promise<{ workspace_id: string; role: MemberRole } | undefined> {
      return db
        .updateTable('invitations')
        .set({ accepted_at: at, accepted_by: userId })
        .where('token_hash', '=', tokenHash)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', at)
        .returning(['workspace_id', 'role'])
        .executeTakeFirst();
    },

    /** Revokes one of the workspace's invitations not yet accepted or revoked; whether it did. */
    async revoke(workspaceId: string, id: string, userId: string, at: string): Promise<boolean> {
      const result = await db
        .updateTable('invitations')
        .set({ revoked_at: at, revoked_by: userId })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    invitations: ReturnType<typeof createInvitationsRepository>;
  }
}
