import { sql } from 'kysely';
import { storeKindOfDb, type Db } from '../db/database.js';
import type { MemberRole } from '../db/schema.js';

export interface MemberView {
  user_id: string;
  email: string;
  role: MemberRole;
  joined_at: string;
}

/** A workspace's members. */
export function createMembersRepository(db: Db) {
  return {
    async list(workspaceId: string): Promise<MemberView[]> {
      return db
        .selectFrom('workspace_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['u.id as user_id', 'u.email as email', 'm.role as role', 'm.created_at as joined_at'])
        .where('m.workspace_id', '=', workspaceId)
        .orderBy('u.email')
        .execute();
    },

    /**
     * The workspace's admins, locked until the transaction ends on
     * PostgreSQL (FOR UPDATE), so that two admins demoting or removing each
     * other at once cannot leave none; SQLite runs one writer at a time.
     */
    async lockAdmins(workspaceId: string): Promise<string[]> {
      const lock = storeKindOfDb(db) === 'postgres' ? sql` for update` : sql``;
      const { rows } = await sql<{ user_id: string }>`select user_id from workspace_members where workspace_id = ${workspaceId} and role = 'admin'${lock}`.execute(db);
      return rows.map((r) => r.user_id);
    },

    async setRole(workspaceId: string, userId: string, role: MemberRole): Promise<boolean> {
      const result = await db.updateTable('workspace_members').set({ role }).where('workspace_id', '=', workspaceId).where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async remove(workspaceId: string, userId: string): Promise<boolean> {
      const result = await db.deleteFrom('workspace_members').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    members: ReturnType<typeof createMembersRepository>;
  }
}
