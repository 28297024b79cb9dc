import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { docBlocks, docSection } from './helpers/doc-blocks.js';
import { freePort } from './helpers/free-port.js';
import { startServe } from './helpers/serve-process.js';
import { createTestApp } from './helpers/test-app.js';
import { freshStore, TEST_ADMIN_DATABASE_URL, TEST_STORE } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const TOKEN = 'metrics-token-for-tests-0123456789';

describe('metrics access, probes and the request log', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('serves /metrics on the main port only behind METRICS_TOKEN: 404 without one configured, 401 without or with a wrong token', async () => {
    const open = await createTestApp();
    cleanups.push(() => open.close());
    assert.equal((await open.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
    assert.equal((await open.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode, 404);

    const t = await createTestApp({ METRICS_TOKEN: TOKEN });
    cleanups.push(() => t.close());
    const without = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(without.statusCode, 401);
    assert.equal(without.headers['www-authenticate'], 'Bearer realm="metrics"');
    assert.doesNotMatch(without.body, /mailroom_/);
    assert.equal((await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}x` } })).statusCode, 401);
    // An API key is not a metrics token.
    assert.equal((await t.app.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': t.apiKey } })).statusCode, 401);
    const ok = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(ok.statusCode, 200);
    assert.match(ok.body, /^# HELP mailroom_http_request_duration_seconds /m);
    // Not an API route: no rate-limit headers.
    assert.equal(ok.headers['x-ratelimit-limit'], undefined);
  });

  it('serves /metrics on METRICS_PORT, a listener of its own, while the main port answers 404', async () => {
    const store = await freshStore();
    cleanups.push(() => store.drop());
    const metricsPort = await freePort();
    const app = await startServer(loadConfig({ ...store.env, LOG_LEVEL: 'silent', PORT: '0', INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0', METRICS_PORT: String(metricsPort) }));
    cleanups.push(() => app.close());
    const { port } = app.server.address() as { port: number };
    const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(scraped.status, 200);
    assert.match(await scraped.text(), /^mailroom_store_up 1$/m);
    assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/v1/health/check`)).status, 404);
    assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 404);
    await app.close();
    // Closed with the app.
    await assert.rejects(fetch(`http://127.0.0.1:${metricsPort}/metrics`));
  });

  it('answers /livez while the process runs, and /readyz 503 naming the store once it is gone, or pending migrations', async () => {
    const t = await createTestApp();
    cleanups.push(() => t.close());
    const probe = async (url: string) => {
      const res = await t.app.inject({ method: 'GET', url });
      return { status: res.statusCode, body: res.json() };
    };
    assert.deepEqual(await probe('/livez'), { status: 200, body: { status: 'ok' } });
    assert.deepEqual(await probe('/readyz'), { status: 200, body: { status: 'ready' } });

    const last = await t.db.selectFrom('mailroom_migrations' as never).select('name' as never).orderBy('name' as never, 'desc').executeTakeFirstOrThrow() as { name: string };
    await t.db.deleteFrom('mailroom_migrations' as never).where('name' as never, '=', last.name as never).execute();
    assert.deepEqual(await probe('/readyz'), { status: 503, body: { status: 'not ready', not_ready: ['migrations'] } });
    await t.db.insertInto('mailroom_migrations' as never).values({ name: last.name, timestamp: new Date().toISOString() } as never).execute();
    assert.equal((await probe('/readyz')).status, 200);

    if (TEST_STORE === 'postgres') {
      const name = new URL(t.storeEnv.DATABASE_URL!).pathname.slice(1);
      const admin = new pg.Client({ connectionString: TEST_ADMIN_DATABASE_URL });
      await admin.connect();
      await admin.query(`drop database ${name} with (force)`);
      await admin.end();
    } else {
      await t.db.destroy();
    }
    assert.deepEqual(await probe('/readyz'), { status: 503, body: { status: 'not ready', not_ready: ['database'] } });
    assert.deepEqual(await probe('/livez'), { status: 200, body: { status: 'ok' } });
  });

  it('answers /readyz 503 naming Redis once the configured Redis stops', async () => {
    const port = await freePort();
    const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    cleanups.push(async () => redis.exitCode === null && redis.kill('SIGKILL'));
    const t = await waitFor(async () => createTestApp({ REDIS_URL: `redis://127.0.0.1:${port}` }).catch(() => null), 'redis-server to answer');
    cleanups.push(() => t.close());
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    redis.kill('SIGKILL');
    await once(redis, 'exit');
    const res = await waitFor(async () => {
      const answer = await t.app.inject({ method: 'GET', url: '/readyz' });
      return answer.statusCode === 503 ? answer : null;
    }, '/readyz to report Redis');
    assert.deepEqual(res.json(), { status: 'not ready', not_ready: ['redis'] });
  });

  it('puts the request id on every log line of a request and in X-Request-Id, keeps a well-formed one sent, and leaves probes out of the info log', async () => {
    const t = await createTestApp({ METRICS_TOKEN: TOKEN });
    cleanups.push(() => t.close());
    const lines: Record<string, unknown>[] = [];
    const app = await buildApp({ config: t.config, services: t.services, logger: { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } } });
    cleanups.push(() => app.close());

    const sent = await app.inject({ method: 'GET', url: '/v1/send/logs', headers: { 'x-api-key': t.apiKey, 'x-request-id': 'lb-7f3a9c.42' } });
    assert.equal(sent.statusCode, 200);
    assert.equal(sent.headers['x-request-id'], 'lb-7f3a9c.42');
    const ofSent = lines.filter((l) => l.reqId === 'lb-7f3a9c.42');
    // One line a request at info, written as it is answered, with the request and the answer on it.
    assert.deepEqual(ofSent.map((l) => l.msg), ['request completed']);
    const answered = ofSent[0] as { req: { method: string; url: string }; res: { statusCode: number }; responseTime: unknown };
    assert.deepEqual([answered.req.method, answered.req.url, answered.res.statusCode], ['GET', '/v1/send/logs', 200]);
    assert.equal(typeof answered.responseTime, 'number');

    // Not well-formed (a line break could forge a log line): replaced, not kept.
    const made = await app.inject({ method: 'POST', url: '/v1/send', headers: { 'x-request-id': 'a b\nc' }, payload: {} });
    assert.equal(made.statusCode, 401);
    const id = String(made.headers['x-request-id']);
    assert.match(id, /^req_[0-9a-z]{26}$/);
    const ofMade = lines.filter((l) => l.reqId === id);
    assert.deepEqual(ofMade.map((l) => l.msg), ['request completed']);
    assert.equal((ofMade[0]!.res as { statusCode: number }).statusCode, 401);
    // Every line Fastify wrote for a request carries its id.
    assert.ok(lines.filter((l) => l.req || l.res).every((l) => typeof l.reqId === 'string'));

    const before = lines.length;
    for (const url of ['/livez', '/readyz', '/v1/health/check']) assert.equal((await app.inject({ method: 'GET', url })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode, 200);
    assert.deepEqual(lines.slice(before), []);
  });

  it('writes readable lines with LOG_FORMAT=pretty, not JSON', async () => {
    const store = await freshStore();
    cleanups.push(() => store.drop());
    const serve = await startServe({ ...store.env, LOG_FORMAT: 'pretty' });
    cleanups.push(() => serve.stop());
    await fetch(`${serve.base}/v1/health/check`);
    await serve.stop();
    const lines = serve.output().split('\n').filter((line) => line.trim() !== '');
    assert.ok(lines.some((line) => /INFO.*Server listening at http:\/\/127\.0\.0\.1:\d+/.test(line)), serve.output());
    for (const line of lines) assert.throws(() => JSON.parse(line), `not JSON: ${line}`);
  });
});

describe('docs/monitoring.md', () => {
  it('runs its probes against a fresh server, and its scrape against one started with the token it names', async () => {
    const section = docSection('docs/monitoring.md', '## Probes and the scrape');
    const [probes, scrapeBlock] = docBlocks('docs/monitoring.md', '## Probes and the scrape');
    const token = /METRICS_TOKEN=(\S+) npm start/.exec(section)?.[1];
    assert.ok(probes && scrapeBlock && token);
    const store = await freshStore();
    const app = await startServer(loadConfig({ ...store.env, LOG_LEVEL: 'silent', PORT: '0', INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0', METRICS_TOKEN: token }));
    try {
      const { port } = app.server.address() as { port: number };
      const run = async (script: string) =>
        (await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script.replaceAll('http://127.0.0.1:3000', `http://127.0.0.1:${port}`)], { encoding: 'utf8', timeout: 30_000 })).stdout;
      assert.equal(await run(probes), '{"status":"ok"}{"status":"ready"}');
      assert.match(await run(scrapeBlock), /^mailroom_store_up 1$/m);
    } finally {
      await app.close();
      await store.drop();
    }
  });
});
