import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { sendBody } from './helpers/test-app.js';
import { mailroomCommand, startServe, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, TEST_REDIS_URL, type FreshStore } from './helpers/test-store.js';

// PostgreSQL and Redis by nature: scripts/run-tests.ts runs this file in the PostgreSQL pass only.
describe('two mailroom serve processes on one PostgreSQL database and one Redis', () => {
  let store: FreshStore;
  let env: Record<string, string>;
  const prefix = `mailroom-test:${process.pid}:${randomBytes(6).toString('hex')}:`;
  let a: ServeProcess;
  let b: ServeProcess;
  let apiKey: string;

  before(async () => {
    assert.ok(TEST_REDIS_URL, 'this test needs Redis (TEST_REDIS_URL)');
    store = await freshStore('postgres');
    env = { ...store.env, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix };
    // Both start at once: each applies pending migrations at start-up, and Kysely's migration lock serialises them.
    [a, b] = await Promise.all([startServe(env), startServe(env)]);
    const created = mailroomCommand(['workspace', 'create', '--name', 'Two processes', '--json'], env);
    assert.equal(created.status, 0, created.stderr);
    apiKey = JSON.parse(created.stdout).api_key;
  });

  after(async () => {
    const codes = await Promise.all([a?.stop(), b?.stop()]);
    const redis = new Redis(TEST_REDIS_URL!);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await store.drop();
    assert.deepEqual(codes, [0, 0], 'both drained and exited cleanly on SIGTERM');
  });

  const call = (server: ServeProcess, method: string, path: string, body?: unknown) =>
    fetch(`${server.base}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('reads through one what was written through the other', async () => {
    const created = await call(a, 'POST', '/v1/domains', { domain: 'two-processes.example' });
    assert.equal(created.status, 201);
    const { data: domain } = (await created.json()) as { data: { id: string } };
    const seen = await call(b, 'GET', `/v1/domains/${domain.id}`);
    assert.equal(seen.status, 200);
    assert.equal(((await seen.json()) as { data: { domain: string } }).data.domain, 'two-processes.example');

    const key = await call(b, 'POST', '/v1/api-keys', { name: 'made on b' });
    const { data: made } = (await key.json()) as { data: { id: string } };
    const listed = (await (await call(a, 'GET', '/v1/api-keys')).json()) as { data: { id: string }[] };
    assert.ok(listed.data.some((k) => k.id === made.id));
  });

  it('holds the send limit across both: 30 per minute per key in total, the 31st refused by whichever gets it', async () => {
    const sent: string[] = [];
    for (let i = 1; i <= 30; i++) {
      const res = await call(i % 2 ? a : b, 'POST', '/v1/send', sendBody({ subject: `Message ${i}` }));
      assert.equal(res.status, 200, `send ${i}`);
      assert.equal(res.headers.get('x-ratelimit-remaining'), String(30 - i), `send ${i} draws on the one budget`);
      sent.push(((await res.json()) as { data: { message_id: string } }).data.message_id);
    }
    for (const server of [a, b]) {
      const limited = await call(server, 'POST', '/v1/send', sendBody());
      assert.equal(limited.status, 429);
      assert.deepEqual(await limited.json(), { success: false, error: 'Rate limit exceeded' });
    }
    // Every accepted send, whichever process took it, is in the log that either one reads.
    for (const server of [a, b]) {
      const logs = await call(server, 'GET', '/v1/send/logs?limit=100');
      assert.equal(logs.headers.get('x-total-count'), '30');
      const ids = new Set(((await logs.json()) as { data: { message_id: string }[] }).data.map((e) => e.message_id));
      assert.deepEqual(ids, new Set(sent));
    }
  });

  it('reports both processes healthy', async () => {
    for (const server of [a, b]) {
      const res = await fetch(`${server.base}/v1/health/check`);
      assert.deepEqual([res.status, await res.json()], [200, { status: 'ok' }]);
    }
  });
});
