import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from './helpers/test-app.js';

// PostgreSQL by nature: scripts/run-tests.ts runs this file in the PostgreSQL pass only.
describe('prepared statements on PostgreSQL (db/postgres-statements.ts)', () => {
  let t: TestApp;
  // One pooled connection: every query below runs on it, so pg_prepared_statements shows what it keeps.
  before(async () => {
    t = await createTestApp({ DATABASE_POOL_SIZE: '1' }, { store: 'postgres' });
  });
  after(() => t.close());

  const prepared = async () =>
    (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(t.db)).rows;

  it('prepares a parameterised query once per connection and runs it by name afterwards', async () => {
    const path = '/v1/send/logs?from_email=Someone@Acme.example';
    assert.equal((await t.call('GET', path)).statusCode, 200);
    const once = (await prepared()).filter((p) => p.statement.includes('lower(from_email)'));
    assert.equal(once.length, 1, 'the logs page is one prepared statement');
    assert.match(once[0]!.name, /^mr_[\w-]{32}$/);

    const res = await t.call('GET', path);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { success: true, data: [] });
    const twice = (await prepared()).filter((p) => p.statement.includes('lower(from_email)'));
    assert.deepEqual(twice, once, 'asked again, it runs the same statement: nothing new is prepared');
  });

  it('runs statements without parameters, and with very many, unprepared', async () => {
    await sql`select 1 as unprepared_probe`.execute(t.db);
    const many = Array.from({ length: 65 }, (_, i) => sql`${i}::int`);
    const { rows } = await sql<{ total: number }>`select (${sql.join(many, sql` + `)}) as total, 'many_probe' as probe`.execute(t.db);
    assert.equal(rows[0]!.total, (64 * 65) / 2);
    const statements = (await prepared()).map((p) => p.statement);
    assert.ok(!statements.some((s) => s.includes('unprepared_probe')), 'no parameters: nothing to plan ahead');
    assert.ok(!statements.some((s) => s.includes('many_probe')), 'more than 64 parameters: a shape of its own each time');
    assert.ok(!statements.some((s) => /^\s*(begin|commit|rollback)\b/i.test(s)), 'transaction control is not prepared');
  });
});
