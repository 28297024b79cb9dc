import { NotFoundError, ValidationError } from '../lib/errors.js';
import { newId, nowIso } from '../lib/ids.js';
import type { WorkspacesTable } from '../db/schema.js';
import type { Repositories, Store } from '../db/store.js';
import { issueApiKey, type ApiKeyScope } from '../api-keys/index.js';
import { hasControlCharacters } from '../lib/email-address.js';

const MAX_WORKSPACE_NAME_LENGTH = 100;

/** A workspace's name as given, trimmed, or the reason it is refused (naming the field as the caller calls it). */
export function workspaceNameOf(rawName: string, field = 'name'): string {
  const name = rawName.trim();
  if (name === '' || name.length > MAX_WORKSPACE_NAME_LENGTH) throw new ValidationError(`${field} must be 1 to ${MAX_WORKSPACE_NAME_LENGTH} characters long`);
  if (hasControlCharacters(name)) throw new ValidationError(`${field} must not contain line breaks or control characters`);
  return name;
}

/** Writes a workspace and its first API key with the repositories of the caller's transaction. */
export async function insertWorkspace(repos: Repositories, name: string): Promise<{ workspace_id: string; api_key: string }> {
  const workspace = { id: newId('ws'), name, created_at: nowIso() };
  await repos.workspaces.insert(workspace);
  const key = await issueApiKey(repos, workspace.id, 'default');
  return { workspace_id: workspace.id, api_key: key.key };
}

export function createWorkspaceService(store: Store) {
  return {
    /** A workspace and its first API key, together or not at all. */
    async create(rawName: string): Promise<{ workspace_id: string; api_key: string }> {
      const name = workspaceNameOf(rawName);
      return store.transaction((repos) => insertWorkspace(repos, name));
    },

    /** A new name, under the same rule as at creation. */
    async rename(workspaceId: string, rawName: string): Promise<{ id: string; name: string }> {
      const name = workspaceNameOf(rawName);
      if (!(await store.workspaces.rename(workspaceId, name))) throw new NotFoundError('Workspace not found');
      return { id: workspaceId, name };
    },

    /** Every workspace, oldest first: what an operator picks an id from. */
    list(): Promise<WorkspacesTable[]> {
      return store.workspaces.list();
    },

    /** Another key for an existing workspace, for an operator who lost every key. */
    async createKey(workspaceId: string, name: string, scope: ApiKeyScope = {}) {
      await mustExist(workspaceId);
      return issueApiKey(store, workspaceId, name, scope);
    },

    /** An existing workspace's keys, as the API lists them: never the key itself. */
    async listKeys(workspaceId: string) {
      await mustExist(workspaceId);
      return store.apiKeys.listByWorkspace(workspaceId);
    },
  };

  async function mustExist(workspaceId: string): Promise<void> {
    if (!(await store.workspaces.findById(workspaceId))) throw new ValidationError(`No workspace ${workspaceId}`);
  }
}
