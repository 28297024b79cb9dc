import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { settleWithin } from './helpers/wait-for.js';

// PostgreSQL by nature: scripts/run-tests.ts runs this file in the PostgreSQL pass only.
describe('DATABASE_STATEMENT_TIMEOUT_MS', () => {
  let t: TestApp;
  let admin: pg.Client;
  before(async () => {
    t = await createTestApp({ DATABASE_STATEMENT_TIMEOUT_MS: '300', RATE_LIMIT_SEND_PER_MIN: '1000' }, { store: 'postgres' });
    admin = new pg.Client({ connectionString: t.storeEnv.DATABASE_URL });
    await admin.connect();
  });
  after(async () => {
    await admin.end();
    await t.close();
  });

  it('cancels a statement that waits longer, so the request answers 500 instead of hanging', async () => {
    await admin.query('begin');
    await admin.query('lock table messages in exclusive mode');
    try {
      // Released only after this answer: without the timeout the send would wait forever. So the wait is
      // bounded here, and a send that never answers still reaches `finally`, which releases the lock.
      const stuck = await settleWithin(t.call('POST', '/v1/send', { body: sendBody() }), 10_000, 'the send waiting on the lock to answer');
      assert.equal(stuck.statusCode, 500);
      assert.deepEqual(stuck.json(), { success: false, error: 'Internal server error' });
    } finally {
      await admin.query('commit');
    }
    const res = await t.call('POST', '/v1/send', { body: sendBody() });
    assert.equal(res.statusCode, 200);
    assert.equal(Number((await admin.query('select count(*) as n from messages')).rows[0].n), 1, 'the cancelled send left nothing behind');
  });
});
