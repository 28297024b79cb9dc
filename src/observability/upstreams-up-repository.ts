import type { Db } from '../db/database.js';

/**
 * mailroom_upstream_up's reading: every upstream, the workspaces' and the server's, and whether the
 * circuit breaker lets it be tried (upstream_health, which every process on the store shares). One
 * with no health row has never failed: up. Both tables hold a row per upstream at most.
 */
export async function upstreamsUp(db: Db, serverUpstreams: readonly string[]): Promise<Map<string, boolean>> {
  const [ids, down] = await Promise.all([
    db.selectFrom('upstreams').select('id').execute(),
    db.selectFrom('upstream_health').select('key').where('down_until', 'is not', null).execute(),
  ]);
  const held = new Set(down.map((row) => row.key));
  return new Map([...serverUpstreams, ...ids.map((row) => row.id)].map((key) => [key, !held.has(key)]));
}
