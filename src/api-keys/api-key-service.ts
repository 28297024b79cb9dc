import { randomBytes, timingSafeEqual } from 'node:crypto';
import { secretHash, secretHashBytes } from '../lib/secret-token.js';
import { hasControlCharacters } from '../lib/email-address.js';
import { ConflictError, NotFoundError, ValidationError } from '../lib/errors.js';
import type { ApiKeyPermission } from '../db/schema.js';
import { newId, nowIso } from '../lib/ids.js';
import { storeFailureKindOf } from '../db/store-failure.js';
import type { Repositories, Store } from '../db/store.js';
import type { AuthenticatedKey } from '../lib/key-identity.js';

export type { AuthenticatedKey };
import type { KeyLookupRow } from './api-keys-repository.js';
import { createRecentCache } from '../lib/recent-cache.js';

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
export const API_KEY_PERMISSIONS: readonly ApiKeyPermission[] = ['full_access', 'sending_access'];
const LAST_FULL_ACCESS_KEY = "The workspace's last full_access API key cannot be deleted through the API; create another full_access key first";

/** What a new key may do; both optional: a full_access key for the whole workspace by default. */
export interface ApiKeyScope {
  permission?: string;
  domain_id?: string;
}

export interface ApiKeyCreated {
  id: string;
  name: string;
  key: string;
  masked_key: string;
  created_at: string;
  permission: ApiKeyPermission;
  domain_id: string | null;
}


/** Whether `presented` has the shape of a key at all: anything else is refused without a look-up. */
function wellFormed(presented: string | undefined): presented is string {
  // The alphabet too: a password given over SMTP AUTH is decoded base64 and may hold anything, NUL included,
  // which PostgreSQL's text cannot even be asked about.
  return presented !== undefined && presented.length === KEY_LENGTH && presented.startsWith(KEY_PREFIX) && BASE64URL.test(presented.slice(KEY_PREFIX.length));
}
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A key read lately, with what each request would otherwise derive from its row again. */
interface RememberedKey {
  /** The row's key_hash as bytes, for the constant-time comparison. */
  hash: Buffer;
  /** When the key was last marked used, in ms (-Infinity: never). */
  lastUsedMs: number;
  /** Shared by every request made with the key while it is remembered: frozen. */
  auth: Readonly<AuthenticatedKey>;
}

function rememberedKeyOf(row: KeyLookupRow): RememberedKey {
  return {
    hash: Buffer.from(row.key_hash, 'hex'),
    lastUsedMs: row.last_used_at ? Date.parse(row.last_used_at) : -Infinity,
    auth: Object.freeze({ keyId: row.id, workspaceId: row.workspace_id, permission: row.permission, domainId: row.domain_id }),
  };
}

function lookupIdOf(key: string): string {
  return key.slice(KEY_PREFIX.length, KEY_PREFIX.length + LOOKUP_ID_LENGTH);
}

function maskKey(key: string): string {
  return `${key.slice(0, KEY_PREFIX.length + 4)}${'*'.repeat(8)}${key.slice(-4)}`;
}

/** Creates a key with the repositories given, so a workspace and its first key can share a transaction. */
export async function issueApiKey(repos: Repositories, workspaceId: string, rawName: string, scope: ApiKeyScope = {}): Promise<ApiKeyCreated> {
  const name = rawName.trim();
  if (name === '') throw new ValidationError('name must not be empty');
  if (name.length > MAX_KEY_NAME_LENGTH) throw new ValidationError(`name must be at most ${MAX_KEY_NAME_LENGTH} characters long`);
  if (hasControlCharacters(name)) throw new ValidationError('name must not contain line breaks or control characters');
  const { permission, domain_id } = await scopeOf(repos, workspaceId, scope);
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
    permission,
    domain_id,
  };
  await repos.apiKeys.insert(row);
  return { id: row.id, name, key, masked_key: row.masked_key, created_at: row.created_at, permission, domain_id };
}

/** Checks a requested scope; the HTTP schema checks the permission too, this covers every other caller. */
async function scopeOf(repos: Repositories, workspaceId: string, scope: ApiKeyScope): Promise<{ permission: ApiKeyPermission; domain_id: string | null }> {
  const permission = (scope.permission ?? 'full_access') as ApiKeyPermission;
  if (!API_KEY_PERMISSIONS.includes(permission)) throw new ValidationError(`permission must be one of ${API_KEY_PERMISSIONS.join(', ')}`);
  if (scope.domain_id === undefined) return { permission, domain_id: null };
  // A full_access key manages the domains themselves: a sending restriction on it would promise what it cannot keep.
  if (permission !== 'sending_access') throw new ValidationError('domain_id can only restrict a sending_access key');
  // A NUL is in no id (and PostgreSQL's text could not be asked about it).
  if (scope.domain_id.includes('\0') || !(await repos.domains.findById(workspaceId, scope.domain_id))) throw new ValidationError('domain_id is not a domain of this workspace');
  return { permission, domain_id: scope.domain_id };
}

export function createApiKeyService(store: Store) {
  /**
   * The keys read lately, by lookup id, for the send routes alone: safe there because the send writer checks
   * the key again in the transaction that writes the send (accepted-sends.ts), so a send made with a key
   * deleted meanwhile, by this process or any other, is not written and answers 401. What else a send route
   * may do with a deleted key (answer a validation error, replay an idempotent answer) lasts RECENT_MS at
   * most, and not at all after a delete through this process. Every other route looks its key up each time.
   */
  const recent = createRecentCache<RememberedKey>();
  // The secret part is checked by comparing hashes in constant time, so response timing says nothing about it.
  const matches = (key: RememberedKey, presented: string) => timingSafeEqual(key.hash, secretHashBytes(presented));
  return {
    create: (workspaceId: string, name: string, scope?: ApiKeyScope) => issueApiKey(store, workspaceId, name, scope),

    async list(workspaceId: string) {
      return store.apiKeys.listByWorkspace(workspaceId);
    },

    /**
     * Deletes a key. Through the API (`keepFullAccess`) the workspace's last
     * full_access key stays, or nothing could manage the workspace's keys and
     * domains any more; the dashboard may delete it, as it can make another.
     */
    async remove(workspaceId: string, id: string, options: { keepFullAccess?: boolean } = {}): Promise<{ id: string; deleted: true }> {
      return store.transaction(async (repos) => {
        if (options.keepFullAccess) {
          const fullAccess = await repos.apiKeys.lockFullAccess(workspaceId);
          if (fullAccess.length === 1 && fullAccess[0] === id) throw new ConflictError(LAST_FULL_ACCESS_KEY);
        }
        if (!(await repos.apiKeys.delete(workspaceId, id))) throw new NotFoundError('API key not found');
        recent.forget((key) => key.auth.keyId === id);
        return { id, deleted: true as const };
      });
    },

    /**
     * The key's workspace, or null for a missing, malformed, unknown or deleted key. `cached`: for the send
     * routes, whose writes check the key again, a key read lately may come from memory (`recent` above).
     */
    async authenticate(presented: string | undefined, { cached = false }: { cached?: boolean } = {}): Promise<Readonly<AuthenticatedKey> | null> {
      if (!wellFormed(presented)) return null;
      const lookupId = lookupIdOf(presented);
      const now = Date.now();
      let key = cached ? recent.get(lookupId, now) : undefined;
      if (!key) {
        const row = await store.apiKeys.findByLookupId(lookupId);
        if (!row) return null;
        key = rememberedKeyOf(row);
        recent.set(lookupId, key, now);
      }
      if (!matches(key, presented)) return null;
      if (now - key.lastUsedMs > LAST_USED_RESOLUTION_MS) {
        // A hint that cannot be written now (a full disk) must not refuse a key the store has just vouched for.
        await store.apiKeys.touch(key.auth.keyId, new Date(now).toISOString()).catch((error: unknown) => {
          if (storeFailureKindOf(error) === undefined) throw error;
        });
        // The remembered key too, or every request within RECENT_MS would write it again.
        key.lastUsedMs = now;
      }
      return key.auth;
    },

    /**
     * What `authenticate(presented, { cached: true })` would answer, when it can be answered at once: the
     * key read lately, the hash matching, and no `last_used_at` to write. Otherwise undefined (call
     * `authenticate`): the send routes' guard then takes no promise.
     */
    authenticateRemembered(presented: string | undefined): Readonly<AuthenticatedKey> | undefined {
      if (!wellFormed(presented)) return undefined;
      const now = Date.now();
      const key = recent.get(lookupIdOf(presented), now);
      if (!key || now - key.lastUsedMs > LAST_USED_RESOLUTION_MS || !matches(key, presented)) return undefined;
      return key.auth;
    },
  };
}
