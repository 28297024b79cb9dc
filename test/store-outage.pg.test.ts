import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { StoreUnavailableError } from '../src/lib/errors.js';
import { freePort } from './helpers/free-port.js';
import { countByStatus, startSendBurst, type BurstAnswer } from './helpers/send-burst.js';
import { mailroomCommand, showServeOutputOfFailedTests, startServe, type ServeProcess } from './helpers/serve-process.js';
import { routesOf } from './helpers/routes.js';
import { createTestApp, sendBody } from './helpers/test-app.js';
import { admin, freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

/** What every request answers while the database cannot be reached. */
const UNAVAILABLE = { success: false, error: new StoreUnavailableError({ cause: null }).message };
/** How long the database refuses connections mid-burst, and how soon after its return a request must succeed. */
const REFUSED_MS = 10_000;
const RESUMED_WITHIN_MS = 5_000;

/** Each 503 of the burst: Retry-After and the envelope with the one sentence; and no 500, no answer missing. */
function assertHonest(answers: BurstAnswer[]): void {
  const counts = countByStatus(answers);
  assert.deepEqual(Object.keys(counts).filter((status) => status !== '200' && status !== '503'), [], `only 200s and 503s: ${JSON.stringify(counts)}`);
  for (const answer of answers.filter((a) => a.status === 503)) {
    assert.deepEqual(answer.body, UNAVAILABLE);
    assert.equal(answer.retryAfter, '5');
  }
}

// PostgreSQL by nature: scripts/run-tests.ts runs this file in the PostgreSQL pass only.
describe('mailroom serve while PostgreSQL goes away mid-burst', () => {
  showServeOutputOfFailedTests();
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /**
   * The database takes no new session, and Mailroom's are ended: what a PostgreSQL refusing connections
   * looks like. Ended sessions take a moment to go (until then one may still commit a send): waited for.
   */
  const refuseConnections = (name: string) =>
    admin(async (client) => {
      await client.query(`alter database ${name} allow_connections false`);
      await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
      await waitFor(async () => (await client.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name])).rows[0].n === 0, "Mailroom's sessions to end");
    });
  const allowConnections = (name: string) => admin((client) => client.query(`alter database ${name} allow_connections true`));

  /** A serve on a database of its own, a workspace, and a webhook for bounces to a real receiver. */
  async function rig(): Promise<{ store: FreshStore; name: string; server: ServeProcess; apiKey: string; hooks: WebhookReceiver }> {
    const store = await freshStore('postgres');
    const name = new URL(store.env.DATABASE_URL!).pathname.slice(1);
    cleanups.push(() => store.drop());
    // Whatever the test did, the database takes connections again before it is dropped.
    cleanups.push(() => allowConnections(name));
    const hooks = await startWebhookReceiver();
    cleanups.push(() => hooks.close());
    const env = { ...store.env, RATE_LIMIT_SEND_PER_MIN: '1000000', RATE_LIMIT_OTHER_PER_MIN: '1000000', WEBHOOK_ALLOW_PRIVATE: 'true' };
    const server = await startServe(env);
    cleanups.push(() => server.stop());
    const created = mailroomCommand(['workspace', 'create', '--name', 'Outage', '--json'], env);
    assert.equal(created.status, 0, created.stderr);
    const apiKey = JSON.parse(created.stdout).api_key as string;
    const webhook = await fetch(`${server.base}/v1/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: hooks.url, events: ['bounced'] }),
    });
    assert.equal(webhook.status, 201);
    return { store, name, server, apiKey, hooks };
  }

  /** Ends every session of Mailroom's on its database: what a failover or a restart of PostgreSQL does. */
  const terminate = (name: string) =>
    admin((client) => client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]));

  /**
   * After the store's return: every send answered 200 is in the store with its log entry and is delivered
   * by serve's delivery thread, which was never restarted; a bounce sent now reaches the webhook receiver,
   * so the webhook dispatcher recovered too.
   */
  async function assertNothingLost(rigged: Awaited<ReturnType<typeof rig>>, answers: BurstAnswer[]): Promise<void> {
    const ids = answers.filter((a) => a.status === 200).map((a) => a.messageId!);
    assert.equal(new Set(ids).size, ids.length);
    const db = new pg.Client({ connectionString: rigged.store.env.DATABASE_URL });
    await db.connect();
    try {
      const stored = await db.query('select count(*)::int as n from messages where id = any($1)', [ids]);
      assert.equal(stored.rows[0].n, ids.length, 'every send answered 200 is in the store');
      const delivered = async () => (await db.query("select count(*)::int as n from log_entries where message_id = any($1) and status = 'delivered'", [ids])).rows[0].n as number;
      await waitFor(async () => (await delivered()) === ids.length, 'every accepted send delivered', { timeoutMs: 90_000, intervalMs: 200 });
    } finally {
      await db.end();
    }
    const bounce = await fetch(`${rigged.server.base}/v1/send`, {
      method: 'POST',
      headers: { 'x-api-key': rigged.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(sendBody({ to: ['bounce@simulator.mailroom.test'] })),
    });
    assert.equal(bounce.status, 200);
    const bounced = ((await bounce.json()) as { data: { message_id: string } }).data.message_id;
    await waitFor(() => rigged.hooks.received.some((hook) => JSON.parse(hook.body).message_id === bounced), 'the bounce webhook after the return');
    assert.doesNotMatch(rigged.server.output(), /the delivery thread exited/);
    assert.equal(rigged.server.child.exitCode, null, 'serve still runs');
  }

  /** The first send begun at or after `since` that answered 200, once there is one. */
  const firstSuccessSince = (answers: BurstAnswer[], since: number) =>
    waitFor(() => answers.find((a) => a.status === 200 && a.startedAt >= since), 'a send to succeed after the store returned', { timeoutMs: 30_000 });

  it('connections cut mid-burst (pg_terminate_backend): no 500, nothing answered 200 lost, service on at once', async () => {
    const rigged = await rig();
    const burst = startSendBurst(rigged.server.base, rigged.apiKey, (n) => sendBody({ subject: `Cut ${n}` }));
    await waitFor(() => burst.answers.filter((a) => a.status === 200).length >= 200, 'the burst to be under way');
    // Three cuts, so that some land inside transactions (a BEGIN, an INSERT, a COMMIT in flight) of both pools.
    for (let i = 0; i < 3; i++) {
      await terminate(rigged.name);
      await delay(200);
    }
    const back = Date.now();
    const first = await firstSuccessSince(burst.answers, back);
    await waitFor(() => burst.answers.filter((a) => a.startedAt > first.endedAt && a.status === 200).length >= 100, 'the burst to go on');
    await burst.stop();
    assertHonest(burst.answers);
    assert.ok(first.endedAt - back < RESUMED_WITHIN_MS, `a send succeeded ${first.endedAt - back} ms after the cut`);
    await assertNothingLost(rigged, burst.answers);
    process.stdout.write(`# connections cut: ${JSON.stringify(countByStatus(burst.answers))}, first 200 ${first.endedAt - back} ms after\n`);
  });

  it(`connections refused for ${REFUSED_MS / 1000} s mid-burst (ALLOW_CONNECTIONS false): 503 with Retry-After on every path, none lost, back within 5 s`, async () => {
    const rigged = await rig();
    const { server, apiKey, name } = rigged;
    const burst = startSendBurst(server.base, apiKey, (n) => sendBody({ subject: `Refused ${n}` }));
    await waitFor(() => burst.answers.filter((a) => a.status === 200).length >= 200, 'the burst to be under way');
    await refuseConnections(name);
    const refusedAt = Date.now();
    await waitFor(() => burst.answers.some((a) => a.status === 503 && a.startedAt > refusedAt), 'the burst to meet the refusal');

    // Every other way in answers the same: the key's look-up, a read, Resend's dialect, the dashboard, the probes.
    const call = (path: string, init: RequestInit = {}) => fetch(`${server.base}${path}`, init);
    const probes: [string, Response, unknown][] = [];
    for (const [path, init] of [
      ['/v1/send/logs', { headers: { 'x-api-key': apiKey } }],
      ['/v1/domains', { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ domain: 'outage.example' }) }],
      ['/compat/resend/domains', { headers: { authorization: `Bearer ${apiKey}` } }],
      ['/compat/resend/emails', { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ from: 'a@sandbox.mailroom.test', to: 'b@example.com', subject: 'Hi', text: 'Hi' }) }],
      ['/dashboard/api/session', { headers: { cookie: 'mailroom_session=some-session-token' } }],
      ['/v1/health/check', {}],
      ['/readyz', {}],
    ] as [string, RequestInit][]) {
      const res = await call(path, init);
      probes.push([path, res, await res.json()]);
    }
    const resendUnavailable = { statusCode: 503, name: 'application_error', message: UNAVAILABLE.error };
    assert.deepEqual(
      probes.map(([path, res, body]) => [path, res.status, res.headers.get('retry-after'), body]),
      [
        ['/v1/send/logs', 503, '5', UNAVAILABLE],
        ['/v1/domains', 503, '5', UNAVAILABLE],
        ['/compat/resend/domains', 503, '5', resendUnavailable],
        ['/compat/resend/emails', 503, '5', resendUnavailable],
        ['/dashboard/api/session', 503, '5', UNAVAILABLE],
        ['/v1/health/check', 503, '5', { status: 'unavailable', down: ['database'] }],
        ['/readyz', 503, '5', { status: 'not ready', not_ready: ['database'] }],
      ],
    );
    assert.equal((await call('/livez')).status, 200, 'the process itself is alive');

    await delay(Math.max(0, refusedAt + REFUSED_MS - Date.now()));
    // The store is back from the moment the statement commits, before its answer arrives here.
    const back = Date.now();
    await allowConnections(name);
    const first = await firstSuccessSince(burst.answers, back);
    await waitFor(() => burst.answers.filter((a) => a.startedAt > first.endedAt && a.status === 200).length >= 100, 'the burst to go on');
    await burst.stop();

    assertHonest(burst.answers);
    const refused = burst.answers.filter((a) => a.startedAt > refusedAt && a.endedAt < back);
    assert.ok(refused.length > 100 && refused.every((a) => a.status === 503), `every send while refused answered 503: ${JSON.stringify(countByStatus(refused))}`);
    assert.ok(first.endedAt - back < RESUMED_WITHIN_MS, `a send succeeded ${first.endedAt - back} ms after the return`);
    assert.equal((await call('/readyz')).status, 200);
    await assertNothingLost(rigged, burst.answers);
    process.stdout.write(`# connections refused: ${JSON.stringify(countByStatus(burst.answers))}, first 200 ${first.endedAt - back} ms after the return\n`);
  });

  it('answers every route of the API, the dashboard and Resend\'s dialect with 503 and Retry-After while the database refuses connections, never 500', async () => {
    const t = await createTestApp({}, { store: 'postgres' });
    cleanups.push(() => t.close());
    const name = new URL(t.storeEnv.DATABASE_URL!).pathname.slice(1);
    cleanups.push(() => allowConnections(name));
    assert.equal((await t.call('POST', '/v1/send', { body: sendBody() })).statusCode, 200);
    await refuseConnections(name);

    // The send routes take a key read lately without the store and check their body first: given valid ones.
    const resendEmail = { from: 'a@sandbox.mailroom.test', to: 'b@example.com', subject: 'Hi', text: 'Hi' };
    const validBodies: Record<string, unknown> = {
      'POST /v1/send': sendBody(),
      'POST /v1/send/batch': [sendBody()],
      'POST /compat/resend/emails': resendEmail,
      'POST /compat/resend/emails/batch': [resendEmail],
    };
    const answers: { route: string; status: number; retryAfter: unknown; body: unknown }[] = [];
    for (const [method, path] of routesOf(t.app)) {
      if (method === 'HEAD') continue;
      const url = path.replace(/:[^/]+/g, 'x').replace(/\*$/, 'x');
      const res = await t.app.inject({
        method: method as 'GET',
        url,
        // A key, Resend's Bearer form of it, a session cookie and the dashboard's own origin: each guard asks the store.
        headers: { 'x-api-key': t.apiKey, authorization: `Bearer ${t.apiKey}`, cookie: 'mailroom_session=some-session-token', origin: 'http://localhost:80', 'x-csrf-token': 'x' },
        ...(method === 'GET' || method === 'DELETE' ? {} : { payload: (validBodies[`${method} ${path}`] ?? {}) as object }),
      });
      let body: unknown = res.body;
      try {
        body = res.json();
      } catch {
        // Pages and assets: kept as text.
      }
      answers.push({ route: `${method} ${path}`, status: res.statusCode, retryAfter: res.headers['retry-after'], body });
    }
    const failed = answers.filter((a) => a.status >= 500);
    assert.deepEqual(failed.filter((a) => a.status !== 503 || a.retryAfter !== '5'), [], 'every 5xx is a 503 with Retry-After');
    const resendUnavailable = { statusCode: 503, name: 'application_error', message: UNAVAILABLE.error };
    for (const answer of failed) {
      const [, path] = answer.route.split(' ');
      if (path === '/v1/health/check') assert.deepEqual(answer.body, { status: 'unavailable', down: ['database'] });
      else if (path === '/readyz') assert.deepEqual(answer.body, { status: 'not ready', not_ready: ['database'] });
      else assert.deepEqual(answer.body, path!.startsWith('/compat/resend') ? resendUnavailable : UNAVAILABLE, answer.route);
    }
    // Every route that needs the store answered so: the guarded ones, whose guard asks it first. SNS's endpoint has
    // no key to look up, and refuses a body that is no signed SNS message (403) before it writes anything.
    const unanswered = answers.filter(
      (a) => /^\S+ \/(v1|compat\/resend|dashboard\/api)\//.test(a.route) && !/\/v1\/(openapi\.json|health\/check|inbound\/ses)$/.test(a.route) && a.status !== 503,
    );
    assert.deepEqual(unanswered.map((a) => `${a.route} ${a.status}`), []);
    process.stdout.write(`# routes while refused: ${answers.length}, of which 503: ${failed.length}\n`);
  });

  it('fails a statement whose session the server ended, or a connection it refuses, as StoreUnavailableError, and the pool carries on', async () => {
    const store = await freshStore('postgres');
    cleanups.push(() => store.drop());
    const name = new URL(store.env.DATABASE_URL!).pathname.slice(1);
    cleanups.push(() => allowConnections(name));
    const db = openDatabase(loadConfig({ ...store.env, LOG_LEVEL: 'silent' }));
    cleanups.push(() => db.destroy());
    const cause = (error: unknown) => (error instanceof StoreUnavailableError ? (error.cause as { code?: string; message: string }) : undefined);

    // The session ends under its own statement (57P01), inside a transaction too; the pool opens a new one for the next.
    await assert.rejects(sql`select pg_terminate_backend(pg_backend_pid())`.execute(db), (error) => cause(error)?.code === '57P01');
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await sql`select pg_terminate_backend(pg_backend_pid())`.execute(trx);
      }),
      (error) => error instanceof StoreUnavailableError,
    );
    assert.deepEqual((await sql<{ n: number }>`select 1 as n`.execute(db)).rows, [{ n: 1 }]);

    // No session to be had: the database refuses them (55000 at connect), then a port nothing listens on.
    await refuseConnections(name);
    await assert.rejects(sql`select 1`.execute(db), (error) => /not currently accepting connections/.test(cause(error)?.message ?? ''));
    await allowConnections(name);
    assert.deepEqual((await sql<{ n: number }>`select 1 as n`.execute(db)).rows, [{ n: 1 }]);

    const closed = new URL(store.env.DATABASE_URL!);
    closed.port = String(await freePort());
    const nowhere = openDatabase(loadConfig({ ...store.env, DATABASE_URL: closed.toString(), LOG_LEVEL: 'silent' }));
    cleanups.push(() => nowhere.destroy());
    await assert.rejects(sql`select 1`.execute(nowhere), (error) => cause(error)?.code === 'ECONNREFUSED');
  });
});
