import type { KeyLookupRow } from '../repositories/api-keys-repository.js';

/** How long a key read from the store serves the send routes from memory. */
export const RECENT_KEY_MS = 5_000;
/** At most this many keys are kept; past it the oldest goes. */
const RECENT_KEY_ENTRIES = 1_000;

/**
 * The API keys this process read lately, by lookup id, for the send routes
 * alone. A send's key is looked up on every request otherwise: on SQLite a read
 * that finds its page cache dropped by the writer's last commit, on PostgreSQL a
 * round trip; at thousands of sends a second that was the API thread's largest
 * single cost. It is safe there because the send writer checks the key again in
 * the transaction that writes the send (accepted-sends.ts): a send made with a
 * key deleted meanwhile, by this process or any other, is not written and
 * answers 401. What else a send route may do with a deleted key (answer a
 * validation error, replay an idempotent answer) lasts RECENT_KEY_MS at most,
 * and not at all after a delete through this process. Every other route looks
 * its key up each time.
 */
export function createApiKeyCache() {
  const entries = new Map<string, { row: KeyLookupRow; until: number }>();
  return {
    get(lookupId: string, now: number): KeyLookupRow | undefined {
      const entry = entries.get(lookupId);
      if (entry && entry.until > now) return entry.row;
      if (entry) entries.delete(lookupId);
      return undefined;
    },
    set(lookupId: string, row: KeyLookupRow, now: number): void {
      entries.delete(lookupId);
      if (entries.size >= RECENT_KEY_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(lookupId, { row, until: now + RECENT_KEY_MS });
    },
    forget(keyId: string): void {
      for (const [lookupId, entry] of entries) if (entry.row.id === keyId) entries.delete(lookupId);
    },
  };
}
