import type { KeyLookupRow } from '../repositories/api-keys-repository.js';
import { createRecentCache } from './recent-cache.js';

/**
 * The API keys this process read lately, by lookup id, for the send routes
 * alone (recent-cache.ts). Safe there because the send writer checks the key
 * again in the transaction that writes the send (accepted-sends.ts): a send
 * made with a key deleted meanwhile, by this process or any other, is not
 * written and answers 401. What else a send route may do with a deleted key
 * (answer a validation error, replay an idempotent answer) lasts RECENT_MS at
 * most, and not at all after a delete through this process. Every other route
 * looks its key up each time.
 */
export function createApiKeyCache() {
  const recent = createRecentCache<KeyLookupRow>();
  return {
    get: (lookupId: string, now: number) => recent.get(lookupId, now),
    set: (lookupId: string, row: KeyLookupRow, now: number) => recent.set(lookupId, row, now),
    forget: (keyId: string) => recent.forget((row) => row.id === keyId),
  };
}
