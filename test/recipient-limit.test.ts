/**
 * RATE_LIMIT_RECIPIENTS_PER_MIN: one budget of recipients per workspace per
 * minute, drawn on by every way a send comes in — two keys, a batch, the
 * Resend-compatible API, SMTP submission (Nodemailer against the real
 * server) and the dashboard's test send — with counters in memory and again
 * in Redis under a prefix of the test's own, as test/rate-limit.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import nodemailer from 'nodemailer';
import { dashboardRequest, signedInPerson } from './helpers/dashboard-client.js';
import { createTestApp, sendBody, writtenRows, type TestApp, type TestAppOptions } from './helpers/test-app.js';
import { connectRedis } from '../src/db/redis.js';
import { ServiceUnavailableError } from '../src/lib/errors.js';
import { createRedisRateLimiter } from '../src/lib/rate-limiter.js';
import { COUNTER_STORES, deleteRedisKeys, freshCounters, freshRedisPrefix, TEST_REDIS_URL } from './helpers/test-store.js';

const LIMIT = 12;
const LIMITED = { success: false, error: 'Rate limit exceeded' };
/** Generous request limits: only the recipients are under test. */
const ENV = { RATE_LIMIT_RECIPIENTS_PER_MIN: String(LIMIT), RATE_LIMIT_SEND_PER_MIN: '1000', RATE_LIMIT_OTHER_PER_MIN: '1000' };

const headersOf = (res: LightMyRequestResponse) => ({
  limit: Number(res.headers['x-ratelimit-limit']),
  remaining: Number(res.headers['x-ratelimit-remaining']),
  reset: Number(res.headers['x-ratelimit-reset']),
  retryAfter: Number(res.headers['retry-after']),
});
const addresses = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i}@example.com`);

for (const counters of COUNTER_STORES) {
  describe(`recipients per workspace per minute (counters in ${counters})`, () => {
    /** A fresh app with fresh counters, closed (and its counters removed) after `work`. */
    async function withApp(work: (t: TestApp, countersEnv: Record<string, string>) => Promise<void>, options: TestAppOptions = {}): Promise<void> {
      const fresh = freshCounters(counters);
      const t = await createTestApp({ ...ENV, ...fresh.env }, options);
      try {
        await work(t, fresh.env);
      } finally {
        await t.close();
        await fresh.drop();
      }
    }

    it('draws every way in from one budget: past it, 429 with the budget in X-RateLimit-*, nothing written, the refused recipients not counted', async () => {
      await withApp(
        async (t) => {
          const port = t.submission!.port;
          const smtp = async (key: string, to: string[]) => {
            const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false }, auth: { user: 'mailroom', pass: key } });
            try {
              return (await transport.sendMail({ from: 'hello@sandbox.mailroom.test', to, subject: 'Hello', text: 'Hello there' })).response;
            } catch (error) {
              return (error as { response?: string }).response ?? assert.fail(String(error));
            } finally {
              transport.close();
            }
          };
          const resend = (path: string, body: unknown) =>
            t.app.inject({ method: 'POST', url: `/compat/resend${path}`, headers: { authorization: `Bearer ${t.apiKey}` }, payload: body as object });
          const resendEmail = (to: string[]) => ({ from: 'hello@sandbox.mailroom.test', to, subject: 'Hi', text: 'Hello' });
          const developer = await signedInPerson(t, t.workspaceId, 'developer');
          const dashboardSend = (to: string[]) => dashboardRequest(t, 'POST', `/workspaces/${t.workspaceId}/send`, { ...developer, body: sendBody({ to }) });
          const other = await t.newWorkspace();
          // The first SMTP client waits for the self-signed certificate: made here, from another workspace's budget.
          assert.match(await smtp(other.apiKey, ['warm@example.com']), /^250 /);
          const secondKey = (await t.call('POST', '/v1/api-keys', { body: { name: 'second' } })).json().data.key as string;

          const windowOpens = Date.now();
          // An address given twice is one recipient: 2.
          const first = await t.call('POST', '/v1/send', { body: sendBody({ to: ['ann@example.com'], cc: ['bob@example.com', 'ANN@example.com'] }) });
          const opened = Date.now();
          assert.equal(first.statusCode, 200, first.body);
          assert.equal(headersOf(first).limit, 1000, "a send that passes reports its key's request budget");
          // Another key of the workspace, a batch: 3 (5).
          const batch = await t.call('POST', '/v1/send/batch', { key: secondKey, body: [sendBody({ to: ['c0@example.com'] }), sendBody({ to: ['c1@example.com'], bcc: ['c2@example.com'] })] });
          assert.equal(batch.statusCode, 200, batch.body);
          // Resend's API: 2 (7); SMTP submission: 2 (9); the dashboard's test send: 1 (10).
          assert.equal((await resend('/emails', resendEmail(addresses('d', 2)))).statusCode, 200);
          assert.match(await smtp(t.apiKey, addresses('e', 2)), /^250 2\.0\.0 OK: queued as msg_/);
          assert.equal((await dashboardSend(['f0@example.com'])).statusCode, 200);

          const before = await writtenRows(t.db);
          const refusedRecipientBudget = (res: LightMyRequestResponse) => {
            const headers = headersOf(res);
            assert.deepEqual([headers.limit, headers.remaining], [LIMIT, 2], 'the recipient budget: its limit and the 2 recipients left');
            assert.ok(headers.reset >= Math.floor(windowOpens / 1000) + 60 && headers.reset <= Math.ceil(opened / 1000) + 60, `reset ${headers.reset}: a minute after the first send`);
            assert.ok(headers.retryAfter >= 1 && headers.retryAfter <= headers.reset - Math.floor(windowOpens / 1000), `Retry-After ${headers.retryAfter}: until the reset`);
          };
          const single = await t.call('POST', '/v1/send', { body: sendBody({ to: addresses('g', 3) }) });
          assert.deepEqual([single.statusCode, single.json()], [429, LIMITED]);
          refusedRecipientBudget(single);
          const overBatch = await t.call('POST', '/v1/send/batch', { key: secondKey, body: [sendBody({ to: ['h0@example.com'] }), sendBody({ to: addresses('h', 2) })] });
          assert.deepEqual([overBatch.statusCode, overBatch.json()], [429, LIMITED]);
          refusedRecipientBudget(overBatch);
          const resendBatch = await resend('/emails/batch', [resendEmail(['i0@example.com']), resendEmail(addresses('i', 2))]);
          assert.deepEqual([resendBatch.statusCode, resendBatch.json()], [429, { statusCode: 429, name: 'rate_limit_exceeded', message: 'Rate limit exceeded' }]);
          refusedRecipientBudget(resendBatch);
          assert.deepEqual([Number(resendBatch.headers['ratelimit-limit']), Number(resendBatch.headers['ratelimit-remaining'])], [LIMIT, 2]);
          assert.match(await smtp(t.apiKey, addresses('j', 3)), /^451 4\.7\.1 Rate limit exceeded: the workspace may send to 12 recipients per minute; try again in \d+ s$/);
          const dashboard = await dashboardSend(addresses('k', 3));
          assert.deepEqual([dashboard.statusCode, dashboard.json()], [429, LIMITED]);
          refusedRecipientBudget(dashboard);
          assert.deepEqual(await writtenRows(t.db), before, 'a refused request writes nothing');

          // The refused requests counted nothing: the last 2 recipients still go, and then nothing does.
          assert.match(await smtp(secondKey, addresses('l', 2)), /^250 /);
          const spent = await t.call('POST', '/v1/send', { body: sendBody() });
          assert.equal(spent.statusCode, 429);
          assert.equal(headersOf(spent).remaining, 0);
          // Other workspaces have budgets of their own.
          assert.equal((await t.call('POST', '/v1/send', { key: other.apiKey, body: sendBody() })).statusCode, 200);
        },
        { submission: true },
      );
    });

    it('answers 400 to a request that could never fit in a minute, counting none of it', async () => {
      await withApp(async (t) => {
        const before = await writtenRows(t.db);
        const tooMany = await t.call('POST', '/v1/send/batch', { body: [sendBody({ to: addresses('a', 10) }), sendBody({ to: addresses('b', 3) })] });
        assert.deepEqual([tooMany.statusCode, tooMany.json()], [400, { success: false, error: 'The request has 13 recipients, more than the 12 this workspace may send to per minute; send them in smaller requests' }]);
        assert.deepEqual(await writtenRows(t.db), before);
        const whole = await t.call('POST', '/v1/send/batch', { body: [sendBody({ to: addresses('a', 10) }), sendBody({ to: addresses('b', 2) })] });
        assert.equal(whole.statusCode, 200, whole.body);
      });
    });

    it('gives back the recipients of a send that was not written, and keeps no Idempotency-Key answer of a 429', async () => {
      await withApp(async (t) => {
        const created = (await t.call('POST', '/v1/api-keys', { body: { name: 'soon gone' } })).json().data;
        assert.equal((await t.call('POST', '/v1/send', { key: created.key, body: sendBody() })).statusCode, 200);
        // Deleted behind the API's back: the send route still takes the key from memory, the writer refuses it (401).
        await t.db.deleteFrom('api_keys').where('id', '=', created.id).execute();
        const unwritten = await t.call('POST', '/v1/send', { key: created.key, body: sendBody({ to: addresses('a', 11) }) });
        assert.equal(unwritten.statusCode, 401, unwritten.body);
        // Its 11 were given back: 1 + 11 fit.
        assert.equal((await t.call('POST', '/v1/send', { body: sendBody({ to: addresses('b', 11) }) })).statusCode, 200);

        const retried = { body: sendBody({ to: ['c@example.com'] }) };
        const inject = () => t.app.inject({ method: 'POST', url: '/v1/send', headers: { 'x-api-key': t.apiKey, 'idempotency-key': 'retry-me' }, payload: retried.body });
        for (const attempt of [1, 2]) {
          const res = await inject();
          assert.deepEqual([res.statusCode, res.json(), res.headers['idempotent-replayed']], [429, LIMITED, undefined], `attempt ${attempt} runs again rather than replaying`);
        }
        assert.equal((await t.db.selectFrom('idempotency_keys').select('key').execute()).length, 0);
      });
    });

    it('holds one budget across apps that share the store and the counters', async () => {
      await withApp(async (t, countersEnv) => {
        const other = await createTestApp({ ...ENV, ...countersEnv }, { shareStoreWith: t });
        try {
          assert.equal((await t.call('POST', '/v1/send', { body: sendBody({ to: addresses('a', LIMIT) }) })).statusCode, 200);
          // In memory each process counts alone, which is why several processes need Redis.
          const res = await other.call('POST', '/v1/send', { key: t.apiKey, body: sendBody() });
          assert.equal(res.statusCode, counters === 'redis' ? 429 : 200);
        } finally {
          await other.close();
        }
      });
    });
  });
}

// Where the run has Redis, as the rate-limit tests above.
if (TEST_REDIS_URL) describe('taking points in Redis', () => {
  it('takes atomically across concurrent requests, and answers 503 while Redis is away', async () => {
    const prefix = `mailroom-test:${process.pid}:${randomBytes(6).toString('hex')}:`;
    const redis = await connectRedis(TEST_REDIS_URL!);
    try {
      const limiter = createRedisRateLimiter(redis, prefix);
      const takes = await Promise.all(Array.from({ length: 25 }, () => limiter.take('workspace:w:recipients', 10, 1)));
      assert.equal(takes.filter((take) => take.allowed).length, 10, 'exactly the limit taken, however the takes interleave');
      await limiter.giveBack('workspace:w:recipients', 10, 4);
      assert.equal((await limiter.take('workspace:w:recipients', 10, 5)).allowed, false, '4 given back: 5 do not fit');
      assert.deepEqual([(await limiter.take('workspace:w:recipients', 10, 4)).allowed, (await limiter.take('workspace:w:recipients', 10, 1)).remaining], [true, 0]);
      redis.disconnect();
      await assert.rejects(limiter.take('workspace:w:recipients', 10, 1), ServiceUnavailableError);
    } finally {
      redis.disconnect();
      await deleteRedisKeys(prefix);
    }
  });

  it('refunds a counted request within its window only, never below nothing', async () => {
    const prefix = freshRedisPrefix();
    const redis = await connectRedis(TEST_REDIS_URL!);
    try {
      const limiter = createRedisRateLimiter(redis, prefix);
      // A window that has ended (or never began): nothing to refund, and no window is started below zero by it.
      await limiter.refund('sign-in:192.0.2.1', 2, 900);
      assert.deepEqual(await redis.keys(`${prefix}*`), []);
      assert.equal((await limiter.consume('sign-in:192.0.2.1', 2, 900)).remaining, 1);
      await limiter.refund('sign-in:192.0.2.1', 2, 900);
      await limiter.refund('sign-in:192.0.2.1', 2, 900);
      const [key] = await redis.keys(`${prefix}*`);
      assert.ok(key && (await redis.pttl(key)) > 800_000, 'the window keeps its expiry');
      assert.equal((await limiter.consume('sign-in:192.0.2.1', 2, 900)).remaining, 1, 'two refunds of one request give back one');
    } finally {
      redis.disconnect();
      await deleteRedisKeys(prefix);
    }
  });
});
