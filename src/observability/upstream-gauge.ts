import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../db/database.js';

/**
 * `mailroom_upstream_up{upstream}`: 1 for each upstream the circuit breaker lets send to, 0 for each
 * it holds down (docs/upstreams.md#seen-and-told), read from the store at each scrape, so every process
 * on one store shows the same. Every upstream is named: MAILROOM_PROVIDER's (`server:smtp`) and every
 * workspace's (`ups_…`; a handful per workspace), so a new one reads 1 before its first failure.
 */
export function createUpstreamGauge(db: Db, registry: Registry, serverKeys: readonly string[]) {
  const gauge = new Gauge({
    name: 'mailroom_upstream_up',
    help: "1 while the upstream takes mail, 0 while the circuit breaker holds it down after failures of its own (docs/upstreams.md); `upstream` is a workspace upstream's id or server:<provider> for MAILROOM_PROVIDER's.",
    labelNames: ['upstream'],
    registers: [registry],
  });
  return {
    gauge,
    async read(): Promise<void> {
      const [upstreams, down] = await Promise.all([
        db.selectFrom('upstreams').select('id').execute(),
        db.selectFrom('upstream_health').select('key').where('down_until', 'is not', null).execute(),
      ]);
      const held = new Set(down.map((row) => row.key));
      gauge.reset();
      for (const key of [...serverKeys, ...upstreams.map((row) => row.id)]) gauge.set({ upstream: key }, held.has(key) ? 0 : 1);
    },
  };
}
