import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { insertTogether, type InsertPart } from '../src/db/bulk-insert.js';
import { createStore } from '../src/composition/store.js';
import { acceptedSend, insertAcceptedRows } from './helpers/accepted-send.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

// insertTogether on PostgreSQL (bulk-insert.ts): one statement, whose text depends on the tables alone.
describe('messages, outbox rows and log entries inserted together on PostgreSQL', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('is one prepared statement whatever the row counts', async () => {
    // One connection, so that its prepared statements are the ones every insert here used.
    const db = openDatabase(loadConfig({ ...t.storeEnv, DATABASE_POOL_SIZE: '1' }));
    try {
      const store = createStore(db);
      for (const [sendCount, recipients] of [[1, 1], [7, 2], [40, 3]] as const) {
        const sends = Array.from({ length: sendCount }, () => acceptedSend(t.workspaceId, recipients));
        await store.transaction((repos) => insertAcceptedRows(repos, sends));
        const entries = await db.selectFrom('log_entries').select('id').where('message_id', 'in', sends.map((s) => s.message.id)).execute();
        assert.equal(entries.length, sendCount * recipients);
      }
      const { rows } = await sql<{ n: string }>`select count(*) as n from pg_prepared_statements where statement like '%json_populate_recordset%'`.execute(db);
      assert.equal(Number(rows[0]!.n), 1);
    } finally {
      await db.destroy();
    }
  });

  it('runs its upserts in the order given, whatever else the statement inserts', async () => {
    // PostgreSQL runs a statement's CTEs after its main query, the last first, unless one reads another.
    await sql`create sequence upsert_order`.execute(t.db);
    for (const table of ['upsert_order_a', 'upsert_order_b', 'upsert_order_c']) {
      await sql`create table ${sql.ref(table)} (k text primary key, at bigint not null default nextval('upsert_order'))`.execute(t.db);
    }
    const part = (table: string, upsert: boolean): InsertPart => ({
      table, columns: ['k'], rows: [{ k: 'x' }, { k: 'y' }], insertAlone: async () => {}, ...(upsert ? { onConflict: 'on conflict ("k") do nothing' } : {}),
    });
    const order = async () => {
      const { rows } = await sql<{ t: string }>`
        select t from (select 'a' as t, min(at) as at from upsert_order_a union all select 'b', min(at) from upsert_order_b union all select 'c', min(at) from upsert_order_c) o
        where at is not null order by at`.execute(t.db);
      await sql`truncate upsert_order_a, upsert_order_b, upsert_order_c`.execute(t.db);
      return rows.map((r) => r.t).join('');
    };
    await insertTogether(t.db, [part('upsert_order_a', true), part('upsert_order_b', true)]);
    assert.equal(await order(), 'ab');
    await insertTogether(t.db, [part('upsert_order_a', true), part('upsert_order_b', true), part('upsert_order_c', false)]);
    assert.match(await order(), /a.*b/);
    await sql`drop table upsert_order_a, upsert_order_b, upsert_order_c`.execute(t.db);
    await sql`drop sequence upsert_order`.execute(t.db);
  });

  it('stores a lone UTF-16 surrogate as U+FFFD, as node-postgres sends one as a parameter', async () => {
    const send = acceptedSend(t.workspaceId, 1);
    send.message.subject = 'half \ud83d of an emoji, and 😀 whole';
    await t.store.transaction((repos) => insertAcceptedRows(repos, [send]));
    const message = await t.db.selectFrom('messages').select('subject').where('id', '=', send.message.id).executeTakeFirstOrThrow();
    assert.equal(message.subject, 'half \uFFFD of an emoji, and 😀 whole');
  });

  it('refuses bytes and bigints, which its JSON cannot carry, and writes nothing', async () => {
    for (const [value, held] of [[Buffer.from('x'), 'bytes'], [10n, 'a bigint']] as const) {
      const send = acceptedSend(t.workspaceId, 1);
      (send.message as unknown as Record<string, unknown>).subject = value;
      await assert.rejects(t.store.transaction((repos) => insertAcceptedRows(repos, [send])), (error: Error) => error instanceof TypeError && error.message === `insertTogether: messages.subject holds ${held}, which JSON cannot carry`);
      const written = await t.db.selectFrom('messages').select('id').where('id', '=', send.message.id).execute();
      assert.deepEqual(written, []);
    }
  });
});
