import { createHash, randomBytes, type Hash } from 'node:crypto';
import { ConflictError, ValidationError } from '../../lib/errors.js';
import type { IdempotencyRepository, StoredResponse } from './idempotency-repository.js';

export type { StoredResponse } from './idempotency-repository.js';

/** How long a key is remembered, from its first request. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-flight row older than this belongs to a request that crashed with its process: it is taken over. */
export const IN_FLIGHT_TIMEOUT_MS = 5 * 60 * 1000;
/** How often a process deletes every expired key (beside deleting one when it is claimed again). */
const PURGE_INTERVAL_MS = 60 * 60 * 1000;
export const MAX_KEY_LENGTH = 256;

export const DIFFERENT_REQUEST = 'Idempotency-Key was already used with a different request';
export const STILL_IN_FLIGHT = 'A request with this Idempotency-Key is still being processed; try again shortly';

/** The key came with another request before: answering that one's response would answer the wrong request. */
export class IdempotencyKeyReusedError extends ConflictError {
  constructor() {
    super(DIFFERENT_REQUEST);
  }
}

/** A key outside 1–256 characters. */
export class InvalidIdempotencyKeyError extends ValidationError {}

/** The first request is still running: trying again in a moment finds its answer. */
export class IdempotencyInFlightError extends ConflictError {
  override readonly retryAfterSeconds = 1;
  constructor() {
    super(STILL_IN_FLIGHT);
  }
}

/** What `begin` decided: run the request holding `lease`, or answer `response` again. */
export type IdempotencyOutcome = { kind: 'claimed'; lease: string } | { kind: 'replay'; response: StoredResponse };

export interface IdempotencyServiceOptions {
  now?: () => Date;
  inFlightTimeoutMs?: number;
}

/**
 * The rules of idempotency keys (modelled on Stripe's and the IETF draft
 * "The Idempotency-Key HTTP Header Field"); the store's primary key decides
 * every race, see the repository.
 */
export function createIdempotencyService(repo: IdempotencyRepository, options: IdempotencyServiceOptions = {}) {
  const now = options.now ?? (() => new Date());
  const inFlightTimeoutMs = options.inFlightTimeoutMs ?? IN_FLIGHT_TIMEOUT_MS;
  let lastPurge = 0;

  return {
    /** 1–256 characters, as the API promises; anything else answers 400 before a key is claimed. */
    checkKey(key: string): string {
      if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
        throw new InvalidIdempotencyKeyError(`Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters (got ${key.length})`);
      }
      return key;
    },

    /** Claims the key for this request, or answers with the first request's response, or refuses with 409. */
    async begin(workspaceId: string, key: string, fingerprint: string): Promise<IdempotencyOutcome> {
      // A claimed key can vanish between our INSERT and SELECT (its holder failed and released it): try again.
      for (let attempt = 0; attempt < 3; attempt++) {
        const at = now();
        const nowIso = at.toISOString();
        await repo.deleteIfExpired(workspaceId, key, nowIso);
        const lease = randomBytes(16).toString('hex');
        const claimed = await repo.insertClaim({
          workspace_id: workspaceId,
          key,
          fingerprint,
          state: 'in_flight',
          lease,
          claimed_at: nowIso,
          created_at: nowIso,
          expires_at: new Date(at.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
        });
        if (claimed) return { kind: 'claimed', lease };

        const row = await repo.find(workspaceId, key);
        if (!row) continue;
        if (row.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
        if (row.state === 'done') {
          return { kind: 'replay', response: { status: row.response_status ?? 200, headers: JSON.parse(row.response_headers ?? '{}'), body: row.response_body ?? '' } };
        }
        const staleBefore = new Date(at.getTime() - inFlightTimeoutMs).toISOString();
        if (await repo.takeOver(workspaceId, key, fingerprint, staleBefore, lease, nowIso)) return { kind: 'claimed', lease };
        throw new IdempotencyInFlightError();
      }
      throw new IdempotencyInFlightError();
    },

    /**
     * Stores the answer of a request that ran: every answer below 500 is kept
     * and replayed (a 4xx from the rules would be the same again, as Stripe
     * does). A 5xx releases the key: the send did not complete (its transaction
     * rolled back), so a retry with the same key must be able to run. So does
     * a 429 (the workspace's recipients per minute, counted once the body is
     * read): the same request passes once the window has turned.
     */
    async finish(workspaceId: string, key: string, lease: string, response: StoredResponse): Promise<void> {
      if (response.status >= 500 || response.status === 429) await repo.release(workspaceId, key, lease);
      else await repo.complete(workspaceId, key, lease, response);
    },

    /** Gives a claim up without an answer (the request ended before one was stored). */
    async release(workspaceId: string, key: string, lease: string): Promise<void> {
      await repo.release(workspaceId, key, lease);
    },

    /** Deletes every expired key, at most once an hour per process; undefined when it is not yet due. */
    purgeExpiredIfDue(): Promise<number> | undefined {
      const at = now().getTime();
      if (at - lastPurge < PURGE_INTERVAL_MS) return undefined;
      lastPurge = at;
      return repo.purgeExpired(new Date(at).toISOString());
    },
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;

/**
 * SHA-256 of the method, the path with its query and the body as canonical JSON (keys sorted), so key
 * order does not matter. The JSON is fed to the hash piece by piece, never built whole: a send with
 * 40 MB of attachments is 53 MB of base64, and its strings go in as they are, without an escaped copy.
 */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  const hash = createHash('sha256').update(`${method.toUpperCase()} ${url}\n`);
  canonicalJson(body ?? null, hash);
  return hash.digest('hex');
}

/** What JSON.stringify would escape in a string (well-formed: lone surrogates too); without any, the string is its own JSON. */
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

function canonicalJson(value: unknown, hash: Hash): void {
  if (Array.isArray(value)) {
    hash.update('[');
    value.forEach((item, i) => {
      if (i > 0) hash.update(',');
      canonicalJson(item, hash);
    });
    hash.update(']');
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    hash.update('{');
    entries.forEach(([k, v], i) => {
      hash.update(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`);
      canonicalJson(v, hash);
    });
    hash.update('}');
  } else if (typeof value === 'string' && !NEEDS_ESCAPING.test(value)) {
    hash.update('"').update(value).update('"');
  } else {
    hash.update(JSON.stringify(value) ?? 'null');
  }
}
