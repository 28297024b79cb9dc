import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { sendBody } from './helpers/test-app.js';
import { mailroomCommand, startServe, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';

const WAIT_MS = 10_000;

// A real process on PostgreSQL: scripts/run-tests.ts runs this file in the PostgreSQL pass only.
describe('mailroom serve on SIGTERM', () => {
  let store: FreshStore;
  let server: ServeProcess | undefined;
  let admin: pg.Client;

  before(async () => {
    store = await freshStore('postgres');
    admin = new pg.Client({ connectionString: store.env.DATABASE_URL });
    await admin.connect();
  });
  after(async () => {
    await server?.stop();
    await admin.end();
    await store.drop();
  });

  it('finishes the requests in flight, then closes the pool and exits 0', async () => {
    server = await startServe(store.env);
    const created = mailroomCommand(['workspace', 'create', '--name', 'Drain', '--json'], store.env);
    const { api_key: apiKey } = JSON.parse(created.stdout);

    // Hold the sends' INSERT on a lock (reads still pass), so they are certainly in flight when SIGTERM arrives.
    await admin.query('begin');
    await admin.query('lock table messages in exclusive mode');
    const sends = Array.from({ length: 5 }, (_, i) =>
      fetch(`${server!.base}/v1/send`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(sendBody({ subject: `In flight ${i}` })),
      }),
    );
    const deadline = Date.now() + WAIT_MS;
    // pg_stat_activity is read once per transaction and kept (PostgreSQL's statistics snapshot): inside the
    // admin's open transaction every later read would show the first one's backends. Clear it each time.
    const waiting = async () => {
      await admin.query('select pg_stat_clear_snapshot()');
      return Number((await admin.query("select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")).rows[0].n);
    };
    while ((await waiting()) === 0) {
      assert.ok(Date.now() < deadline, 'the sends reached the database');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    const exitCode = server.stop();
    // Still draining: the process waits for the requests it holds.
    const early = await Promise.race([exitCode.then(() => 'exited'), new Promise((resolve) => setTimeout(resolve, 300, 'running'))]);
    assert.equal(early, 'running');
    await admin.query('commit');

    const responses = await Promise.all(sends);
    assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 200, 200]);
    for (const res of responses) assert.equal(((await res.json()) as { data: { status: string } }).data.status, 'sent');
    assert.equal(await exitCode, 0);
    assert.equal(Number((await admin.query('select count(*) as n from messages')).rows[0].n), 5);
    // The pool is closed: no connection of the process is left on the server.
    const left = await admin.query("select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()");
    assert.equal(Number(left.rows[0].n), 0);
  });
});
