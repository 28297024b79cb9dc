import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { UpstreamHealthTable } from '../db/schema.js';

export type UpstreamHealthRow = Selectable<UpstreamHealthTable>;

/** The circuit breaker's rule (docs/upstreams.md#failover): so many failures within the window take an upstream down for `downMs`. */
export interface BreakerRule {
  failures: number;
  windowMs: number;
  downMs: number;
  /** How long a probe holds a down upstream: another may probe it after this, should the first never report. */
  probeHoldMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The breaker's state in the store, so every process on it agrees: each change is one statement
 * whose WHERE decides who made it (the process that took the upstream down, or brought it back,
 * is the one whose UPDATE changed a row), never a read and a write that two processes could
 * interleave. Timestamps are ISO strings of one format: they compare as text.
 */
export function createUpstreamHealthRepository(db: Db) {
  return {
    async list(keys?: readonly string[]): Promise<UpstreamHealthRow[]> {
      if (keys && keys.length === 0) return [];
      let query = db.selectFrom('upstream_health').selectAll();
      if (keys) query = query.where('key', 'in', [...keys]);
      return query.execute();
    },

    /**
     * One failure of the upstream's own. Answers whether this one took it down. A failure of the
     * probe sends it back down for another `downMs`, without a second "down".
     */
    async recordFailure(key: string, error: string, nowMs: number, rule: BreakerRule, probe: boolean): Promise<{ wentDown: boolean; row: UpstreamHealthRow | undefined }> {
      const now = iso(nowMs);
      const windowStart = iso(nowMs - rule.windowMs);
      await db
        .insertInto('upstream_health')
        .values({ key, failures: 1, window_started_at: now, last_error: error, last_error_at: now, changed_at: now })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet((eb) => {
            const stale = eb.or([eb('upstream_health.window_started_at', 'is', null), eb('upstream_health.window_started_at', '<', windowStart)]);
            return {
              failures: eb.case().when(stale).then(1).else(eb('upstream_health.failures', '+', 1)).end(),
              window_started_at: eb.case().when(stale).then(now).else(eb.ref('upstream_health.window_started_at')).end(),
              last_error: error,
              last_error_at: now,
            };
          }),
        )
        .execute();
      const downUntil = iso(nowMs + rule.downMs);
      let wentDown = false;
      if (probe) {
        await db.updateTable('upstream_health').set({ down_until: downUntil, probe_until: null }).where('key', '=', key).where('down_until', 'is not', null).execute();
      } else {
        const result = await db
          .updateTable('upstream_health')
          .set({ down_until: downUntil, probe_until: null, changed_at: now })
          .where('key', '=', key)
          .where('down_until', 'is', null)
          .where('failures', '>=', rule.failures)
          .executeTakeFirst();
        wentDown = Number(result.numUpdatedRows) === 1;
      }
      const row = await db.selectFrom('upstream_health').selectAll().where('key', '=', key).executeTakeFirst();
      return { wentDown, row };
    },

    /** A hand-over a down upstream answered (its probe): healthy again, its count started afresh. Answers whether this one brought it back. */
    async recordSuccess(key: string, nowMs: number): Promise<{ cameUp: boolean }> {
      const up = await db
        .updateTable('upstream_health')
        .set({ down_until: null, probe_until: null, failures: 0, window_started_at: null, changed_at: iso(nowMs) })
        .where('key', '=', key)
        .where('down_until', 'is not', null)
        .executeTakeFirst();
      return { cameUp: Number(up.numUpdatedRows) === 1 };
    },

    /** The one probe of a down upstream whose quiet time is over: true for the caller that takes it, false for every other. */
    async takeProbe(key: string, nowMs: number, rule: BreakerRule): Promise<boolean> {
      const now = iso(nowMs);
      const result = await db
        .updateTable('upstream_health')
        .set({ probe_until: iso(nowMs + rule.probeHoldMs) })
        .where('key', '=', key)
        .where('down_until', 'is not', null)
        .where('down_until', '<=', now)
        .where((eb) => eb.or([eb('probe_until', 'is', null), eb('probe_until', '<=', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

/** What the API and the dashboard call an upstream's health: `down` while the breaker holds it, `degraded` after failures this minute. */
export function upstreamHealthOf(row: UpstreamHealthRow | undefined, nowMs: number, rule: Pick<BreakerRule, 'windowMs'>): 'healthy' | 'degraded' | 'down' {
  if (!row) return 'healthy';
  if (row.down_until !== null) return 'down';
  if (Number(row.failures) > 0 && row.window_started_at !== null && row.window_started_at >= iso(nowMs - rule.windowMs)) return 'degraded';
  return 'healthy';
}

declare module '../db/store.js' {
  interface Repositories {
    upstreamHealth: ReturnType<typeof createUpstreamHealthRepository>;
  }
}
