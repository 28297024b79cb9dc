import { sql } from 'kysely';
import { Gauge, type Registry } from 'prom-client';
import { storeKindOfDb, type Db } from '../db/database.js';
import type { OffThreadReads } from '../db/sqlite-reader.js';

/**
 * `mailroom_upstream_up{upstream}`: 1 for each upstream the circuit breaker lets send to, 0 for each
 * it holds down (docs/upstreams.md#seen-and-told), read from the store at each scrape, so every process
 * on one store shows the same. Every upstream is named: MAILROOM_PROVIDER's (`server:smtp`) and every
 * workspace's (`ups_…`; a handful per workspace), so a new one reads 1 before its first failure.
 * Each list is read as one row (the keys joined by commas, which no key holds), so that `offThread`
 * (serve on SQLite) reads it off the thread answering HTTP, as the backlog's gauges are.
 */
export function createUpstreamGauge(db: Db, registry: Registry, serverKeys: readonly string[], offThread?: OffThreadReads) {
  const gauge = new Gauge({
    name: 'mailroom_upstream_up',
    help: "1 while the upstream takes mail, 0 while the circuit breaker holds it down after failures of its own (docs/upstreams.md); `upstream` is a workspace upstream's id or server:<provider> for MAILROOM_PROVIDER's.",
    labelNames: ['upstream'],
    registers: [registry],
  });
  const joined = (column: string) => (storeKindOfDb(db) === 'sqlite' ? sql<string | null>`group_concat(${sql.ref(column)}, ',')` : sql<string | null>`string_agg(${sql.ref(column)}, ',')`);
  const queries = () => ({
    ids: db.selectFrom('upstreams').select(joined('id').as('list')),
    down: db.selectFrom('upstream_health').select(joined('key').as('list')).where('down_until', 'is not', null),
  });
  type Listed = { list: string | null } | undefined;
  const split = (row: Listed) => (row?.list ? row.list.split(',') : []);

  return {
    gauge,
    queries,
    async read(): Promise<void> {
      const { ids, down } = queries();
      const [idRow, downRow] = offThread
        ? ((await offThread.firstRows([ids.compile(), down.compile()])) as Listed[])
        : await Promise.all([ids.executeTakeFirst(), down.executeTakeFirst()]);
      const held = new Set(split(downRow));
      gauge.reset();
      for (const key of [...serverKeys, ...split(idRow)]) gauge.set({ upstream: key }, held.has(key) ? 0 : 1);
    },
  };
}
