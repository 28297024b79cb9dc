import { randomBytes, timingSafeEqual } from 'node:crypto';
import { secretHash } from '../secret-token.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import type { Repositories, Store } from '../repositories/index.js';

const KEY_PREFIX = 'mr_';
/** 256 bits of randomness, 43 base64url characters: far beyond guessing, so a fast hash is the right one to store. */
const KEY_RANDOM_BYTES = 32;
const KEY_LENGTH = KEY_PREFIX.length + 43;
/**
 * The first characters after the prefix find the row (72 bits: unique in
 * practice, and a unique index makes sure); the rest is only ever compared,
 * as a hash of the whole key, in constant time.
 */
const LOOKUP_ID_LENGTH = 12;
export const MAX_KEY_NAME_LENGTH = 100;
/** `last_used_at` is a hint, not an audit log: write it at most this often per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface ApiKeyCreated {
  id: string;
  name: string;
  key: string;
  masked_key: string;
  created_at: string;
}

export interface AuthenticatedKey {
  keyId: string;
  workspaceId: string;
}

function lookupIdOf(key: string): string {
  return key.slice(KEY_PREFIX.length, KEY_PREFIX.length + LOOKUP_ID_LENGTH);
}

function maskKey(key: string): string {
  return `${key.slice(0, KEY_PREFIX.length + 4)}${'*'.repeat(8)}${key.slice(-4)}`;
}

/** Creates a key with the repositories given, so a workspace and its first key can share a transaction. */
export async function issueApiKey(repos: Repositories, workspaceId: string, rawName: string): Promise<ApiKeyCreated> {
  const name = rawName.trim();
  if (name === '') throw new ValidationError('name must not be empty');
  if (name.length > MAX_KEY_NAME_LENGTH) throw new ValidationError(`name must be at most ${MAX_KEY_NAME_LENGTH} characters long`);
  const key = `${KEY_PREFIX}${randomBytes(KEY_RANDOM_BYTES).toString('base64url')}`;
  const row = {
    id: newId('key'),
    workspace_id: workspaceId,
    name,
    lookup_id: lookupIdOf(key),
    key_hash: secretHash(key),
    masked_key: maskKey(key),
    created_at: nowIso(),
    last_used_at: null,
  };
  await repos.apiKeys.insert(row);
  return { id: row.id, name, key, masked_key: row.masked_key, created_at: row.created_at };
}

export function createApiKeyService(store: Store) {
  return {
    create: (workspaceId: string, name: string) => issueApiKey(store, workspaceId, name),

    async list(workspaceId: string) {
      return store.apiKeys.listByWorkspace(workspaceId);
    },

    async remove(workspaceId: string, id: string): Promise<{ id: string; deleted: true }> {
      if (!(await store.apiKeys.delete(workspaceId, id))) throw new NotFoundError('API key not found');
      return { id, deleted: true };
    },

    /** The key's workspace, or null for a missing, malformed, unknown or deleted key. */
    async authenticate(presented: string | undefined): Promise<AuthenticatedKey | null> {
      if (!presented || presented.length !== KEY_LENGTH || !presented.startsWith(KEY_PREFIX)) return null;
      const row = await store.apiKeys.findByLookupId(lookupIdOf(presented));
      if (!row) return null;
      // The secret part is checked by comparing hashes in constant time, so response timing says nothing about it.
      if (!timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(secretHash(presented), 'hex'))) return null;
      const now = Date.now();
      if (!row.last_used_at || now - Date.parse(row.last_used_at) > LAST_USED_RESOLUTION_MS) {
        await store.apiKeys.touch(row.id, new Date(now).toISOString());
      }
      return { keyId: row.id, workspaceId: row.workspace_id };
    },
  };
}
