import { ConflictError, NotFoundError } from '../lib/errors.js';
import type { MemberRole } from '../db/schema.js';
import { nowIso } from '../lib/ids.js';
import type { Store } from '../db/store.js';
import { insertWorkspace, workspaceNameOf } from './workspace-service.js';
import { roleOf } from './user-service.js';

export const LAST_ADMIN = 'A workspace keeps at least one admin: make someone else admin first';

/** Workspaces as people have them: creating one, and who is in it with which role. */
export function createMemberService(store: Store) {
  return {
    /** A new workspace (with its first API key) whose creator is its admin. */
    async createWorkspace(userId: string, rawName: string): Promise<{ id: string; name: string; role: MemberRole; api_key: string }> {
      const name = workspaceNameOf(rawName);
      return store.transaction(async (repos) => {
        const workspace = await insertWorkspace(repos, name);
        await repos.users.addMember({ workspace_id: workspace.workspace_id, user_id: userId, role: 'admin', created_at: nowIso() });
        return { id: workspace.workspace_id, name, role: 'admin', api_key: workspace.api_key };
      });
    },

    list: (workspaceId: string) => store.members.list(workspaceId),

    /** Changes a member's role; the last admin cannot be demoted. */
    async changeRole(workspaceId: string, userId: string, rawRole: string): Promise<{ user_id: string; role: MemberRole }> {
      const role = roleOf(rawRole);
      return store.transaction(async (repos) => {
        const admins = await repos.members.lockAdmins(workspaceId);
        if (role !== 'admin' && admins.length === 1 && admins[0] === userId) throw new ConflictError(LAST_ADMIN);
        if (!(await repos.members.setRole(workspaceId, userId, role))) throw new NotFoundError('Member not found');
        return { user_id: userId, role };
      });
    },

    /** Removes a member; the last admin cannot be removed. */
    async remove(workspaceId: string, userId: string): Promise<{ user_id: string; removed: true }> {
      return store.transaction(async (repos) => {
        const admins = await repos.members.lockAdmins(workspaceId);
        if (admins.length === 1 && admins[0] === userId) throw new ConflictError(LAST_ADMIN);
        if (!(await repos.members.remove(workspaceId, userId))) throw new NotFoundError('Member not found');
        return { user_id: userId, removed: true };
      });
    },
  };
}
