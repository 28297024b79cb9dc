/** How long an entry is remembered. */
export const RECENT_MS = 5_000;
/** At most this many entries are kept; past it the oldest goes. */
const RECENT_ENTRIES = 1_000;

/**
 * What this process read from the store lately, by key, for RECENT_MS: for the
 * send path, where a read per request was the API thread's largest single cost
 * (on SQLite a read whose page cache the writer's last commit had dropped, on
 * PostgreSQL a round trip). Only where what is remembered is checked again in
 * the transaction that writes the send (accepted-sends.ts): the API key
 * (api-key-service.ts) and the sender domain's verification (send-service.ts).
 */
export function createRecentCache<V>() {
  const entries = new Map<string, { value: V; until: number }>();
  return {
    get(key: string, now: number): V | undefined {
      const entry = entries.get(key);
      if (entry && entry.until > now) return entry.value;
      if (entry) entries.delete(key);
      return undefined;
    },
    set(key: string, value: V, now: number): void {
      entries.delete(key);
      if (entries.size >= RECENT_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, until: now + RECENT_MS });
    },
    forget(which: (value: V, key: string) => boolean): void {
      for (const [key, entry] of entries) if (which(entry.value, key)) entries.delete(key);
    },
  };
}
