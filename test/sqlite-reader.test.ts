import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openSqlite } from '../src/db/database.js';
import { createSqliteReader, type OffThreadReads } from '../src/db/sqlite-reader.js';
import { createMetrics } from '../src/observability/metrics.js';
import { parseMetrics, valueOf, type Sample } from './helpers/metrics-text.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';

describe('reads on the SQLite read thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-reader-'));
  const db = openSqlite(dir);
  const reader = createSqliteReader(dir);
  after(async () => {
    await reader.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers each query\'s first row, in order, with what is committed', async () => {
    await sql`create table notes (id integer primary key, body text not null)`.execute(db);
    await sql`insert into notes (body) values ('one'), ('two')`.execute(db);
    const count = sql<{ n: number }>`select count(*) as n from notes`.compile(db);
    const second = sql<{ body: string }>`select body from notes where id = ${2}`.compile(db);
    const none = sql<{ body: string }>`select body from notes where id = ${99}`.compile(db);
    assert.deepEqual(await reader.firstRows([count, second, none]), [{ n: 2 }, { body: 'two' }, undefined]);

    await sql`insert into notes (body) values ('three')`.execute(db);
    assert.deepEqual(await reader.firstRows([count]), [{ n: 3 }]);
  });

  it('cannot write, answers a failed query with its error, and goes on reading', async () => {
    await assert.rejects(reader.firstRows([sql`insert into notes (body) values ('four') returning id`.compile(db)]), /readonly/);
    await assert.rejects(reader.firstRows([sql`insert into notes (body) values ('four')`.compile(db)]), /does not return data/);
    await assert.rejects(reader.firstRows([sql`select * from nowhere`.compile(db)]), /no such table: nowhere/);
    assert.deepEqual(await reader.firstRows([sql<{ n: number }>`select count(*) as n from notes`.compile(db)]), [{ n: 3 }]);
  });

  it('starts its thread again for a read asked after it was closed', async () => {
    await reader.close();
    assert.deepEqual(await reader.firstRows([sql<{ n: number }>`select count(*) as n from notes`.compile(db)]), [{ n: 3 }]);
  });

  it('answers every read with an error when the store would not open', async () => {
    const missing = createSqliteReader(join(dir, 'no-such-dir'));
    try {
      await assert.rejects(missing.firstRows([sql`select 1`.compile(db)]), /would not open for reading/);
    } finally {
      await missing.close();
    }
  });
});

// Apart from metrics.test.ts: one process talks to one kind of store (db/compiled-query.ts), and this
// one is SQLite whichever store the run tests.
const TOKEN = 'metrics-token-for-tests-0123456789';
const LIMITS = { RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000', METRICS_TOKEN: TOKEN };

async function scrape(t: TestApp): Promise<Sample[]> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.statusCode, 200, res.body);
  return parseMetrics(res.body);
}

describe('GET /metrics on SQLite', () => {
  it('reads the store-wide gauges on a connection of their own, not the one the HTTP thread answers with', async () => {
    const t = await createTestApp(LIMITS, { store: 'sqlite' });
    try {
      for (let i = 0; i < 2; i++) {
        const sent = await t.call('POST', '/v1/send', { body: sendBody() });
        assert.equal(sent.statusCode, 200, sent.body);
      }
      const [job] = await t.db.selectFrom('delivery_jobs').select('message_id').execute();
      // The HTTP thread's one connection held by a transaction that has removed a job and not committed: a
      // scrape on that connection would wait for it, as every request on it does while a read runs.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const transaction = t.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('delivery_jobs').where('message_id', '=', job!.message_id).execute();
        entered();
        await held;
      });
      await inside;
      let timer: NodeJS.Timeout | undefined;
      try {
        const waited = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('the scrape waited for the connection the HTTP thread answers with')), 5000);
        });
        const samples = await Promise.race([scrape(t), waited]);
        // What is committed: the removal is not, yet.
        assert.equal(valueOf(samples, 'mailroom_delivery_queue_jobs'), 2);
        assert.equal(valueOf(samples, 'mailroom_store_up'), 1);
      } finally {
        clearTimeout(timer);
        release();
        await transaction;
      }
      assert.equal(valueOf(await scrape(t), 'mailroom_delivery_queue_jobs'), 1);
    } finally {
      await t.close();
    }
  });

  it('gives a scrape the store-wide gauges, left out while the thread cannot read and back once it can', async () => {
    const t = await createTestApp({}, { store: 'sqlite' });
    const reads = createSqliteReader(t.config.dataDir);
    let failing = true;
    const flaky: OffThreadReads = { firstRows: (queries) => (failing ? Promise.reject(new Error('disk gone')) : reads.firstRows(queries)), close: () => reads.close() };
    const metrics = createMetrics({ db: t.db, processMetrics: false, offThreadReads: flaky });
    try {
      assert.equal((await t.call('POST', '/v1/send', { body: sendBody() })).statusCode, 200);
      const down = parseMetrics(await metrics.scrape());
      assert.equal(valueOf(down, 'mailroom_store_up'), 0);
      assert.ok(!down.some((sample) => sample.name === 'mailroom_delivery_queue_jobs'));
      failing = false;
      const up = parseMetrics(await metrics.scrape());
      assert.equal(valueOf(up, 'mailroom_store_up'), 1);
      assert.equal(valueOf(up, 'mailroom_delivery_queue_jobs'), 1);
    } finally {
      await reads.close();
      await t.close();
    }
  });
});
