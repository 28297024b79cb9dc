import type { Store } from '../db/store.js';
import type { BreakerRule, UpstreamHealthRow } from './upstream-health-repository.js';

/** docs/upstreams.md#failover: 5 failures of an upstream's own within 60 s take it down; after 30 s (UPSTREAM_DOWN_MS) one attempt probes it. */
export const BREAKER_RULE: BreakerRule = { failures: 5, windowMs: 60_000, downMs: 30_000, probeHoldMs: 90_000 };
/** How long a process trusts what it last read of an upstream's health before reading the store again. */
export const HEALTH_READ_EVERY_MS = 1_000;

/** `yes`: send to it; `probe`: send to it as the one probe of a down upstream; `no`: skip it. */
export type Admission = 'yes' | 'probe' | 'no';

export interface UpstreamTransition {
  key: string;
  state: 'down' | 'up';
  /** The failure that took it down (for `down`). */
  lastError: string | null;
  at: string;
}

export interface UpstreamBreaker {
  /** Whether an attempt may go to the upstream now. One that is the route's only upstream is always admitted: there is nowhere else to go. */
  admit(key: string, onlyChoice: boolean): Promise<Admission>;
  /** A failure of the upstream's own (refusing Mailroom, unreachable, throttling): not a recipient's. */
  failed(key: string, error: string, admission: Admission): Promise<void>;
  /** The upstream answered (accepted, or refused a recipient): a down one is up again. */
  answered(key: string): Promise<void>;
}

/**
 * The circuit breaker of every upstream, its state in the store (upstream_health) so every
 * process on it agrees. What a process last read is trusted for HEALTH_READ_EVERY_MS, and
 * its own writes update that at once: a healthy upstream costs no store round trip per send.
 * `onChange` hears of a change this process made (down, or up again), once across processes.
 */
export function createUpstreamBreaker(
  store: Pick<Store, 'upstreamHealth'>,
  onChange: (transition: UpstreamTransition) => Promise<void>,
  rule: BreakerRule = BREAKER_RULE,
  now: () => number = Date.now,
): UpstreamBreaker {
  const known = new Map<string, { row: UpstreamHealthRow | undefined; readAt: number }>();

  async function current(key: string): Promise<UpstreamHealthRow | undefined> {
    const seen = known.get(key);
    if (seen && now() - seen.readAt < HEALTH_READ_EVERY_MS) return seen.row;
    const [row] = await store.upstreamHealth.list([key]);
    known.set(key, { row, readAt: now() });
    return row;
  }

  /** Told, but never allowed to fail the attempt that caused it: the change is in the store already. */
  const tell = (transition: UpstreamTransition) => onChange(transition).catch(() => undefined);

  return {
    async admit(key, onlyChoice) {
      if (onlyChoice) return 'yes';
      const row = await current(key);
      if (!row?.down_until) return 'yes';
      const at = new Date(now()).toISOString();
      // Quiet for the down time, then while another attempt probes it.
      if (row.down_until > at || (row.probe_until !== null && row.probe_until > at)) return 'no';
      const won = await store.upstreamHealth.takeProbe(key, now(), rule);
      if (!won) known.set(key, { row: { ...row, probe_until: new Date(now() + rule.probeHoldMs).toISOString() }, readAt: now() });
      return won ? 'probe' : 'no';
    },

    async failed(key, error, admission) {
      const { wentDown, row } = await store.upstreamHealth.recordFailure(key, error, now(), rule, admission === 'probe');
      known.set(key, { row, readAt: now() });
      if (wentDown) await tell({ key, state: 'down', lastError: error, at: new Date(now()).toISOString() });
    },

    async answered(key) {
      // Failures within the window stay counted (a flapping upstream still trips); an answer only ends a down.
      const row = await current(key);
      if (!row?.down_until) return;
      const { cameUp } = await store.upstreamHealth.recordSuccess(key, now());
      known.set(key, { row: { ...row, failures: 0, window_started_at: null, down_until: null, probe_until: null }, readAt: now() });
      if (cameUp) await tell({ key, state: 'up', lastError: null, at: new Date(now()).toISOString() });
    },
  };
}
