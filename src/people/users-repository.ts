import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { MemberRole, UsersTable, WorkspaceMembersTable } from '../db/schema.js';

/** Users and their workspace memberships. */
export function createUsersRepository(db: Db) {
  return {
    async insert(user: UsersTable): Promise<void> {
      await db.insertInto('users').values(user).execute();
    },

    /** The user with this e-mail address, whatever its case (the unique index is on lower(email)). */
    async findByEmail(email: string): Promise<UsersTable | undefined> {
      return db.selectFrom('users').selectAll().where(sql`lower(email)`, '=', sql`lower(${email})`).executeTakeFirst();
    },

    async findById(id: string): Promise<UsersTable | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Every user with their memberships (oldest first), oldest user first. */
    async listWithMemberships(): Promise<Array<Pick<UsersTable, 'id' | 'email' | 'created_at'> & { memberships: Array<{ workspace_id: string; role: MemberRole }> }>> {
      const users = await db.selectFrom('users').select(['id', 'email', 'created_at']).orderBy('id').execute();
      const members = await db.selectFrom('workspace_members').select(['user_id', 'workspace_id', 'role']).orderBy('created_at').orderBy('workspace_id').execute();
      return users.map((user) => ({
        ...user,
        memberships: members.filter((m) => m.user_id === user.id).map(({ workspace_id, role }) => ({ workspace_id, role })),
      }));
    },

    async setPasswordHash(id: string, passwordHash: string, updatedAt: string): Promise<void> {
      await db.updateTable('users').set({ password_hash: passwordHash, updated_at: updatedAt }).where('id', '=', id).execute();
    },

    async count(): Promise<number> {
      const row = await db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async addMember(member: WorkspaceMembersTable): Promise<void> {
      await db.insertInto('workspace_members').values(member).execute();
    },

    /** The workspaces a user belongs to, with their names and the role in each, by name. */
    async workspacesOf(userId: string): Promise<Array<{ id: string; name: string; role: MemberRole }>> {
      return db
        .selectFrom('workspace_members as m')
        .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
        .select(['w.id as id', 'w.name as name', 'm.role as role'])
        .where('m.user_id', '=', userId)
        .orderBy('w.name')
        .orderBy('w.id')
        .execute();
    },

    /** The user's role in the workspace, or undefined when they are not a member. */
    async roleIn(userId: string, workspaceId: string): Promise<MemberRole | undefined> {
      const row = await db.selectFrom('workspace_members').select('role').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).executeTakeFirst();
      return row?.role;
    },

    /** The workspaces a user belongs to, with the role in each, oldest membership first. */
    async membershipsOf(userId: string): Promise<Array<{ workspace_id: string; role: MemberRole }>> {
      return db
        .selectFrom('workspace_members')
        .select(['workspace_id', 'role'])
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('workspace_id')
        .execute();
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    users: ReturnType<typeof createUsersRepository>;
  }
}
