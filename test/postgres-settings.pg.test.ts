import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { autovacuumWarning } from '../src/db/postgres-settings.js';
import { startServe, startWorkerProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';

// PostgreSQL by nature: scripts/run-tests.ts runs this file in the PostgreSQL pass only.
describe('start-up warnings about the PostgreSQL server', () => {
  let store: FreshStore;
  /** The server's own setting, read here: autovacuum is set per server (postgresql.conf), not per database or session. */
  let autovacuum: string;
  before(async () => {
    store = await freshStore('postgres');
    const client = new pg.Client({ connectionString: store.env.DATABASE_URL });
    await client.connect();
    autovacuum = (await client.query<{ autovacuum: string }>('show autovacuum')).rows[0]!.autovacuum;
    await client.end();
  });
  after(() => store?.drop());

  it('names autovacuum = off, what it costs and what to do; says nothing when it is on', () => {
    assert.match(autovacuumWarning('off')!, /^PostgreSQL runs with autovacuum = off: .*turn autovacuum on, or run VACUUM \(ANALYZE\) on a schedule$/);
    assert.equal(autovacuumWarning('on'), null);
    assert.equal(autovacuumWarning(undefined), null);
  });

  it('serve and worker warn at start exactly when the server runs with autovacuum off, once each', async () => {
    const expected = autovacuumWarning(autovacuum);
    const linesOf = (output: string) => output.split('\n').filter((line) => line.includes('autovacuum'));
    const serve = await startServe({ ...store.env, WORKER_ENABLED: 'true' });
    try {
      const lines = linesOf(serve.output());
      if (expected === null) assert.deepEqual(lines, []);
      else {
        // serve's delivery thread runs the worker too; only serve says it.
        assert.equal(lines.length, 1, serve.output());
        assert.equal(JSON.parse(lines[0]!).msg, expected);
        assert.equal(JSON.parse(lines[0]!).level, 40);
      }
    } finally {
      assert.equal(await serve.stop(), 0);
    }
    const worker = await startWorkerProcess(store.env);
    try {
      const lines = linesOf(worker.output());
      if (expected === null) assert.deepEqual(lines, []);
      else assert.deepEqual(lines.map((line) => JSON.parse(line).msg), [expected]);
    } finally {
      await worker.stop();
    }
  });
});
