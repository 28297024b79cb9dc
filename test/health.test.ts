import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { Redis } from 'ioredis';
import { freePort } from './helpers/free-port.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { TEST_ADMIN_DATABASE_URL, TEST_STORE } from './helpers/test-store.js';

const WAIT_MS = 10_000;

/** Polls `check` until it holds: conditions are waited for, not slept on. */
async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A Redis of this test's own (Debian's redis-server), so it can be stopped without touching the machine's; `port` to start it again. */
async function startRedis(port?: number): Promise<{ url: string; port: number; process: ChildProcess }> {
  port ??= await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  await waitFor('redis-server to answer', async () => {
    const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => {});
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  });
  return { url, port, process: child };
}

async function health(t: TestApp) {
  const res = await t.call('GET', '/v1/health/check', { key: null });
  return { status: res.statusCode, body: res.json() };
}

describe('health check', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('answers 200 {"status": "ok"} while the store and Redis answer, 503 naming Redis once it stops, and serves again once it is back', async () => {
    const redis = await startRedis();
    cleanups.push(async () => redis.process.exitCode === null && redis.process.kill('SIGKILL'));
    const t = await createTestApp({ REDIS_URL: redis.url });
    cleanups.push(() => t.close());
    assert.deepEqual(await health(t), { status: 200, body: { status: 'ok' } });

    redis.process.kill('SIGKILL');
    await once(redis.process, 'exit');
    await waitFor('the health check to report Redis down', async () => (await health(t)).status === 503);
    assert.deepEqual(await health(t), { status: 503, body: { status: 'unavailable', down: ['redis'] } });
    // No envelope, no rate-limit headers: a load balancer reads it as it is.
    const res = await t.call('GET', '/v1/health/check', { key: null });
    assert.equal(res.headers['x-ratelimit-limit'], undefined);

    // A request that needs the counters is refused for now, not let through unlimited, and writes nothing.
    const before = await t.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const send = await t.call('POST', '/v1/send', { body: sendBody() });
    assert.equal(send.statusCode, 503);
    assert.deepEqual(send.json(), { success: false, error: 'Service temporarily unavailable' });
    assert.equal(send.headers['retry-after'], '5');
    const after = await t.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
    // The liveness probe asks nothing of Redis: the process is not restarted for it.
    assert.equal((await t.call('GET', '/livez', { key: null })).statusCode, 200);

    // Redis back on its address: ioredis reconnects by itself, and the same requests are served again.
    const again = await startRedis(redis.port);
    cleanups.push(async () => again.process.exitCode === null && again.process.kill('SIGKILL'));
    await waitFor('the health check to report all well again', async () => (await health(t)).status === 200);
    const resent = await t.call('POST', '/v1/send', { body: sendBody() });
    assert.equal(resent.statusCode, 200);
    assert.equal(resent.headers['x-ratelimit-remaining'], String(t.config.rateLimits.sendPerMinute - 1), 'counted in Redis again');
  });

  it('answers 503 naming the database when the store cannot answer', async () => {
    const t = await createTestApp();
    cleanups.push(() => t.close());
    assert.equal((await health(t)).status, 200);
    if (TEST_STORE === 'postgres') {
      // The database disappears under the running app, its connections ended.
      const name = new URL(t.storeEnv.DATABASE_URL!).pathname.slice(1);
      const admin = new pg.Client({ connectionString: TEST_ADMIN_DATABASE_URL });
      await admin.connect();
      await admin.query(`drop database ${name} with (force)`);
      await admin.end();
    } else {
      // The embedded store is a file this process holds; closing it is how it stops answering.
      await t.db.destroy();
    }
    assert.deepEqual(await health(t), { status: 503, body: { status: 'unavailable', down: ['database'] } });
  });
});
