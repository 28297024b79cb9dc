/**
 * SPEC.md §8.1's backoff in the SDK (issue 17 point 3), against a real
 * Mailroom on loopback: real 429s from its rate limiter, 5xx answers and lost
 * answers from a real proxy in front of it, network errors from a closed
 * port. The SDK's clock is the test's: `sleep` records each wait and returns
 * at once, `random` is fixed, so the schedule is asserted to the millisecond.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mailroom, type MailroomOptions, type SendEmailRequest } from '../sdk/src/index.js';
import { startFlakyProxy, type FlakyProxy, type ProxyAction } from './helpers/flaky-proxy.js';
import { freePort } from './helpers/free-port.js';
import { listenOnLoopback } from './helpers/listening-app.js';
import { requestFingerprint } from '../src/sending/idempotency/idempotency-service.js';
import { createTestApp, sendBody, writtenRows, type TestApp } from './helpers/test-app.js';

const UNLIMITED = { RATE_LIMIT_SEND_PER_MIN: '1000000', RATE_LIMIT_OTHER_PER_MIN: '1000000' };
const email = (overrides: Partial<SendEmailRequest> = {}) => sendBody(overrides) as unknown as SendEmailRequest;

/** The test's clock: waits are recorded, never slept; jitter draws come from `draws` in turn. */
function testClock(draws: number[] = [0]) {
  const waits: number[] = [];
  let next = 0;
  const options: Pick<MailroomOptions, 'sleep' | 'random'> = {
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => draws[next++ % draws.length]!,
  };
  return { waits, options };
}

const FORWARD: ProxyAction = { kind: 'forward' };
const answer = (status: number, headers: Record<string, string> = {}, error = 'Service temporarily unavailable'): ProxyAction => ({
  kind: 'answer',
  status,
  headers,
  body: JSON.stringify({ success: false, error }),
});

describe('the SDK retries as SPEC.md §8.1 says', () => {
  let t: TestApp;
  let baseUrl: string;
  const proxies: FlakyProxy[] = [];
  before(async () => {
    t = await createTestApp(UNLIMITED);
    baseUrl = await listenOnLoopback(t);
  });
  after(async () => {
    for (const proxy of proxies) await proxy.close();
    await t.close();
  });

  async function proxy(plan: (index: number) => ProxyAction): Promise<FlakyProxy> {
    const started = await startFlakyProxy(baseUrl, plan);
    proxies.push(started);
    return started;
  }

  /** The message ids of the log entries to `to`: one per message sent to that recipient. */
  async function messagesTo(to: string): Promise<string[]> {
    const res = await t.call('GET', `/v1/send/logs?to=${encodeURIComponent(to)}&limit=100`);
    return (res.json().data as { message_id: string }[]).map((entry) => entry.message_id);
  }

  it('waits min(2^attempt, 10) s plus 0–0.5 s of jitter before retries 1, 2 and 3 of a 5xx, then succeeds', async () => {
    const flaky = await proxy((index) => (index < 3 ? answer(500, {}, 'Internal server error') : FORWARD));
    const clock = testClock([0, 0.5, 0.999]);
    const { data, error } = await new Mailroom(t.apiKey, { baseUrl: flaky.url, ...clock.options }).stats.get();
    assert.equal(error, null);
    assert.deepEqual(data, (await t.call('GET', '/v1/send/stats')).json().data);
    assert.deepEqual(clock.waits, [2000, 4000 + 250, 8000 + 499.5]);
    assert.equal(flaky.requests.length, 4);
  });

  it('gives up after 3 retries and answers the last error, with the attempts it took', async () => {
    const flaky = await proxy(() => answer(502, {}, 'Bad gateway'));
    const clock = testClock([0.2]);
    const { data, error } = await new Mailroom(t.apiKey, { baseUrl: flaky.url, ...clock.options }).domains.list();
    assert.equal(data, null);
    assert.deepEqual(error, { status: 502, name: 'server_error', message: 'Bad gateway', attempts: 4 });
    assert.deepEqual(clock.waits, [2100, 4100, 8100]);
    assert.equal(flaky.requests.length, 4, 'one request and three retries, no more');
  });

  it('caps the wait at 10 s when more retries are asked for, and retries nothing with maxRetries 0', async () => {
    const flaky = await proxy(() => answer(503));
    const clock = testClock([0]);
    const patient = await new Mailroom(t.apiKey, { baseUrl: flaky.url, maxRetries: 5, ...clock.options }).domains.list();
    assert.equal(patient.error?.attempts, 6);
    assert.deepEqual(clock.waits, [2000, 4000, 8000, 10000, 10000]);

    const hasty = testClock();
    const once = await new Mailroom(t.apiKey, { baseUrl: flaky.url, maxRetries: 0, ...hasty.options }).domains.list();
    assert.deepEqual([once.error?.status, once.error?.attempts, hasty.waits], [503, 1, []]);
  });

  it('honours Retry-After when it asks for longer than the backoff, and only then', async () => {
    // Seconds, longer than every backoff (at most 8.5 s): the server's wish wins each time.
    const longer = await proxy((index) => (index < 3 ? answer(503, { 'retry-after': '9' }) : FORWARD));
    const slow = testClock([0.999]);
    assert.equal((await new Mailroom(t.apiKey, { baseUrl: longer.url, ...slow.options }).domains.list()).error, null);
    assert.deepEqual(slow.waits, [9000, 9000, 9000]);

    // Five seconds: longer than the first two backoffs (2 and 4 s, plus jitter), shorter than the third (8 s).
    const mixed = await proxy((index) => (index < 3 ? answer(429, { 'retry-after': '5' }, 'Rate limit exceeded') : FORWARD));
    const clock = testClock([0.5]);
    assert.equal((await new Mailroom(t.apiKey, { baseUrl: mixed.url, ...clock.options }).domains.list()).error, null);
    assert.deepEqual(clock.waits, [5000, 5000, 8250]);

    // An HTTP date 20 s after the SDK's now, as RFC 9110 allows.
    const now = Date.parse('2026-11-22T10:00:00Z');
    const dated = await proxy((index) => (index < 1 ? answer(503, { 'retry-after': new Date(now + 20_000).toUTCString() }) : FORWARD));
    const later = testClock([0]);
    assert.equal((await new Mailroom(t.apiKey, { baseUrl: dated.url, now: () => now, ...later.options }).domains.list()).error, null);
    assert.deepEqual(later.waits, [20_000]);
  });

  it('retries network errors (nothing listening) and answers status 0 after the last', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const clock = testClock([0.1]);
    const { data, error } = await new Mailroom(t.apiKey, { baseUrl: closed, ...clock.options }).emails.send(email());
    assert.equal(data, null);
    assert.equal(error?.status, 0);
    assert.equal(error?.name, 'network_error');
    assert.equal(error?.attempts, 4);
    assert.match(error!.message, new RegExp(`^Could not reach Mailroom at ${closed}: .*ECONNREFUSED`));
    assert.ok(!error!.message.includes(t.apiKey), 'the key is never in a message');
    assert.deepEqual(clock.waits, [2050, 4050, 8050]);
  });

  it('counts a request unanswered after timeoutMs as a network error, and retries it', async () => {
    const stalled = await proxy((index) => (index === 0 ? { kind: 'hold' } : FORWARD));
    const clock = testClock([0]);
    const { error } = await new Mailroom(t.apiKey, { baseUrl: stalled.url, timeoutMs: 300, ...clock.options }).stats.get();
    assert.equal(error, null);
    assert.deepEqual(clock.waits, [2000]);

    const silent = await proxy(() => ({ kind: 'hold' }));
    const given = await new Mailroom(t.apiKey, { baseUrl: silent.url, timeoutMs: 100, maxRetries: 1, ...testClock().options }).stats.get();
    assert.deepEqual(given.error, { status: 0, name: 'network_error', message: `Could not reach Mailroom at ${silent.url}: no answer within 100 ms`, attempts: 2 });
  });

  it('never retries a 400, 401, 403, 404, or a 409 that asks for no retry (a cancel too late)', async () => {
    const counting = await proxy(() => FORWARD);
    const clock = testClock();
    const mailroom = new Mailroom(t.apiKey, { baseUrl: counting.url, ...clock.options });
    const answers = [
      await mailroom.emails.send(email({ to: [] })),
      await new Mailroom('mr_wrong', { baseUrl: counting.url, ...clock.options }).stats.get(),
      await mailroom.domains.get('dom_unknown'),
      await mailroom.emails.cancel((await mailroom.emails.send(email())).data!.message_id),
    ];
    assert.deepEqual(answers.map((a) => [a.error?.status, a.error?.attempts]), [[400, 1], [401, 1], [404, 1], [409, 1]]);
    const sendingKey = (await mailroom.apiKeys.create({ name: 'sender', permission: 'sending_access' })).data!.key;
    assert.equal((await new Mailroom(sendingKey, { baseUrl: counting.url, ...clock.options }).domains.list()).error?.status, 403);
    assert.deepEqual(clock.waits, []);
    assert.equal(counting.requests.length, 7, 'one request per call (the send and the key creation included)');
  });

  describe('idempotency: a retried send never sends twice', () => {
    it('sends once when the first answer is lost after the server accepted the send', async () => {
      const lossy = await proxy((index) => (index === 0 ? { kind: 'cut-after-forward' } : FORWARD));
      const clock = testClock();
      const to = 'lost-answer@example.com';
      const { data, error } = await new Mailroom(t.apiKey, { baseUrl: lossy.url, ...clock.options }).emails.send(email({ to: [to] }));
      assert.equal(error, null);
      assert.equal(clock.waits.length, 1, 'the lost answer was retried');
      assert.deepEqual(lossy.requests.map((r) => r.upstreamStatus), [200, 200], 'the server answered both requests');
      const [first, second] = lossy.requests.map((r) => r.headers['idempotency-key']);
      assert.match(String(first), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(second, first, 'the retry carries the same Idempotency-Key');
      assert.deepEqual(await messagesTo(to), [data!.message_id], 'one message, the one answered');
    });

    it('sends a batch once when its first answer is lost', async () => {
      const lossy = await proxy((index) => (index === 0 ? { kind: 'cut-after-forward' } : FORWARD));
      const items = [email({ to: ['lost-batch-1@example.com'] }), email({ to: ['lost-batch-2@example.com'] })];
      const { data, error } = await new Mailroom(t.apiKey, { baseUrl: lossy.url, ...testClock().options }).emails.batch(items);
      assert.equal(error, null);
      assert.equal(lossy.requests.length, 2);
      assert.equal(lossy.requests[1]!.headers['idempotency-key'], lossy.requests[0]!.headers['idempotency-key']);
      assert.deepEqual(await messagesTo('lost-batch-1@example.com'), [data![0]!.message_id]);
      assert.deepEqual(await messagesTo('lost-batch-2@example.com'), [data![1]!.message_id]);
    });

    it('waits for an earlier attempt still in flight (409 with Retry-After), then answers its outcome: one message', async () => {
      // The state a lost first attempt leaves while the server still works on it: the key claimed, in flight.
      const body = email({ to: ['in-flight@example.com'] });
      const now = new Date();
      await t.db
        .insertInto('idempotency_keys')
        .values({
          workspace_id: t.workspaceId,
          key: 'in-flight-1',
          fingerprint: requestFingerprint('POST', '/v1/send', body),
          state: 'in_flight',
          lease: 'first-attempt',
          claimed_at: now.toISOString(),
          response_status: null,
          response_headers: null,
          response_body: null,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
        })
        .execute();
      const counting = await proxy(() => FORWARD);
      const waits: number[] = [];
      // While the SDK waits, the first attempt ends as a 5xx would end it: the key is freed for the retry.
      const sleep = async (ms: number) => {
        waits.push(ms);
        if (waits.length === 2) await t.db.deleteFrom('idempotency_keys').where('key', '=', 'in-flight-1').execute();
      };
      const { data, error } = await new Mailroom(t.apiKey, { baseUrl: counting.url, sleep, random: () => 0 }).emails.send(body, { idempotencyKey: 'in-flight-1' });
      assert.equal(error, null);
      assert.deepEqual(waits, [2000, 4000], 'Retry-After: 1 is shorter than the backoff');
      assert.deepEqual(counting.requests.map((r) => r.upstreamStatus), [409, 409, 200]);
      assert.deepEqual(await messagesTo('in-flight@example.com'), [data!.message_id]);

      // A 409 without Retry-After (the key used with another body) is final, as every other 4xx.
      const reused = await new Mailroom(t.apiKey, { baseUrl: counting.url, sleep, random: () => 0 }).emails.send(email({ subject: 'Other' }), { idempotencyKey: 'in-flight-1' });
      assert.deepEqual([reused.error?.status, reused.error?.attempts, reused.error?.message], [409, 1, 'Idempotency-Key was already used with a different request']);
    });

    it('would have sent twice without the key: the same lost answer, retried by hand', async () => {
      const lossy = await proxy((index) => (index === 0 ? { kind: 'cut-after-forward' } : FORWARD));
      const to = 'no-key@example.com';
      const post = () =>
        fetch(`${lossy.url}/v1/send`, { method: 'POST', headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(email({ to: [to] })) });
      await assert.rejects(post(), TypeError);
      assert.equal((await post()).status, 200);
      assert.equal((await messagesTo(to)).length, 2, 'without an Idempotency-Key the retry is a second message');
    });

    it('uses the key it is given, and a new one per call otherwise', async () => {
      const counting = await proxy(() => FORWARD);
      const mailroom = new Mailroom(t.apiKey, { baseUrl: counting.url });
      const given = await mailroom.emails.send(email({ to: ['given-key@example.com'] }), { idempotencyKey: 'order-42' });
      const again = await mailroom.emails.send(email({ to: ['given-key@example.com'] }), { idempotencyKey: 'order-42' });
      assert.equal(again.data!.message_id, given.data!.message_id, 'the same key answers the first send again');
      await mailroom.emails.send(email({ to: ['fresh-key-1@example.com'] }));
      await mailroom.emails.send(email({ to: ['fresh-key-2@example.com'] }));
      const keys = counting.requests.map((r) => r.headers['idempotency-key']);
      assert.deepEqual(keys.slice(0, 2), ['order-42', 'order-42']);
      assert.notEqual(keys[2], keys[3]);
      assert.deepEqual(await messagesTo('given-key@example.com'), [given.data!.message_id]);
    });
  });
});

describe('the SDK waits out a real rate limit', () => {
  let t: TestApp;
  let baseUrl: string;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '1', RATE_LIMIT_OTHER_PER_MIN: '1' });
    baseUrl = await listenOnLoopback(t);
  });
  after(() => t.close());

  it('waits Retry-After (the rest of the window, longer than any backoff) after each 429, then answers it with retryAfter', async () => {
    const seen: (string | null)[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      seen.push(response.headers.get('retry-after'));
      return response;
    };
    const clock = testClock([0.5]);
    const mailroom = new Mailroom(t.apiKey, { baseUrl, fetch: recordingFetch, ...clock.options });

    assert.equal((await mailroom.emails.send(email())).error, null, 'the one send of the window');
    const { data, error } = await mailroom.emails.send(email({ to: ['limited@example.com'] }));
    assert.equal(data, null);
    assert.equal(error?.status, 429);
    assert.equal(error?.name, 'rate_limit_exceeded');
    assert.equal(error?.message, 'Rate limit exceeded');
    assert.equal(error?.attempts, 4);

    const retryAfters = seen.slice(1).map(Number);
    assert.equal(retryAfters.length, 4);
    // The window is a minute from the first request: Retry-After is the rest of it (rounded up to whole
    // seconds on both ends, so up to 61), longer than any backoff.
    for (const seconds of retryAfters) assert.ok(seconds > 50 && seconds <= 61, `Retry-After ${seconds}`);
    assert.equal(error?.retryAfter, retryAfters[3], 'the error says when to try again');
    assert.deepEqual(clock.waits, retryAfters.slice(0, 3).map((seconds) => seconds * 1000));
    assert.equal((await writtenRows(t.db)).messages, 1, 'only the first send was recorded');
  });
});
