/**
 * Sign-in bounded (people/session-service.ts, people/password-hashing.ts): attempts per client
 * address, in memory and in Redis across processes; password hashes on threads of their own, a few
 * at a time; and a flood of wrong sign-ins against a real `mailroom serve` leaving the dashboard
 * answering.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HASHING_BUSY, MAX_HASHES_AT_ONCE, passwordHashing, SIGN_IN_ATTEMPTS_PER_CLIENT, SIGN_IN_CLIENT_LIMITED, SIGN_IN_REFUSED } from '../src/people/index.js';
import { DASHBOARD_ORIGIN } from './helpers/dashboard-client.js';
import { requestFrom, type PlainAnswer } from './helpers/forwarding-proxy.js';
import { showServeOutputOfFailedTests, startServe, type ServeProcess } from './helpers/serve-process.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { deleteRedisKeys, freshRedisPrefix, freshStore, TEST_REDIS_URL, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const PASSWORD = 'correct horse 7';
/** Wrong sign-ins sent at once in the flood, each from an address of its own. */
const FLOOD = 200;
/** What a dashboard answer may take while the flood is being answered. */
const DASHBOARD_ANSWER_MS = 1000;

/** POST /dashboard/api/session in-process, from the client address `from`. */
function signIn(t: TestApp, from: string, email: string, password: string) {
  return t.app.inject({
    method: 'POST',
    url: '/dashboard/api/session',
    remoteAddress: from,
    headers: { host: new URL(DASHBOARD_ORIGIN).host, origin: DASHBOARD_ORIGIN },
    payload: { email, password },
  });
}

const outcome = (res: { statusCode: number; json(): { error?: string } }) => `${res.statusCode} ${res.json().error ?? ''}`.trim();

describe(`${SIGN_IN_ATTEMPTS_PER_CLIENT} sign-in attempts per client address in 15 minutes (counters in memory)`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await t.services.users.create({ email: 'ada@example.com', password: PASSWORD });
  });
  after(() => t.close());

  it('refuses the next attempt, right password or not, whichever accounts the earlier ones named; a success is given back', async () => {
    const client = '192.0.2.7';
    // Counted, then given back: had it kept its count, the last of the twenty below would be refused.
    assert.equal(outcome(await signIn(t, client, 'ada@example.com', PASSWORD)), '200');
    // One password tried on many accounts, ten at a time (fewer than the hashing queue holds).
    for (let batch = 0; batch < SIGN_IN_ATTEMPTS_PER_CLIENT / 10; batch++) {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => signIn(t, client, `user${batch * 10 + i}@example.com`, 'Summer2026!!')));
      assert.deepEqual(answers.map(outcome), Array<string>(10).fill(`401 ${SIGN_IN_REFUSED}`));
    }
    const limited = await signIn(t, client, 'ada@example.com', PASSWORD);
    assert.equal(outcome(limited), `429 ${SIGN_IN_CLIENT_LIMITED}`);
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(retryAfter > 15 * 60 - 120 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}: the window opened with the first attempt`);
    assert.equal(outcome(await signIn(t, '192.0.2.8', 'ada@example.com', PASSWORD)), '200', 'another address has a budget of its own');
  });

  it('counts an IPv6 client by its /64: a new source address within it has no budget of its own', async () => {
    const network = '2001:db8:7:7';
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_CLIENT; i += 10) {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, j) => signIn(t, `${network}::${(i + j + 1).toString(16)}`, `v6user${i + j}@example.com`, 'Summer2026!!')));
      assert.deepEqual(answers.map(outcome), Array<string>(10).fill(`401 ${SIGN_IN_REFUSED}`));
    }
    assert.equal(outcome(await signIn(t, `${network}:aaaa:bbbb:cccc:dddd`, 'ada@example.com', PASSWORD)), `429 ${SIGN_IN_CLIENT_LIMITED}`);
    assert.equal(outcome(await signIn(t, '2001:db8:7:8::1', 'ada@example.com', PASSWORD)), '200', 'the next /64 is another client');
  });

  it(`never runs more than ${MAX_HASHES_AT_ONCE} hashes at once, answers 429 once too many wait, and hashes for an unknown address as for a known one`, async () => {
    const before = passwordHashing.state();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => signIn(t, `198.51.100.${i + 1}`, i % 2 === 0 ? 'ada@example.com' : `nobody${i}@example.com`, `wrong ${i}`)),
    );
    const state = passwordHashing.state();
    const refused = answers.filter((res) => outcome(res) === `401 ${SIGN_IN_REFUSED}`);
    const busy = answers.filter((res) => outcome(res) === `429 ${HASHING_BUSY}`);
    assert.equal(refused.length + busy.length, answers.length, answers.map(outcome).join('; '));
    assert.ok(busy.length > 0, 'some were told to wait');
    assert.ok(busy.every((res) => res.headers['retry-after'] === '1'));
    assert.equal(state.started - before.started, refused.length, 'one hash for each refusal, known address or not');
    assert.ok(state.peakRunning >= 1 && state.peakRunning <= MAX_HASHES_AT_ONCE, `at most ${MAX_HASHES_AT_ONCE} at once (${state.peakRunning})`);
    assert.deepEqual([state.running, state.waiting], [0, 0]);
  });
});

// With Redis in the run (scripts/run-tests.ts narrows it otherwise, and says so).
if (TEST_REDIS_URL !== undefined) describe('sign-in attempts per client address, counted in Redis by two processes', () => {
  let first: TestApp;
  let second: TestApp;
  const prefix = freshRedisPrefix();
  before(async () => {
    const counters = { REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix };
    first = await createTestApp(counters);
    second = await createTestApp(counters, { shareStoreWith: first });
  });
  after(async () => {
    await second.close();
    await first.close();
    await deleteRedisKeys(prefix);
  });

  it('share one budget: ten attempts on each, and the next one on either is refused; a success is given back', async () => {
    const client = '192.0.2.9';
    await first.services.users.create({ email: 'ada@example.com', password: PASSWORD });
    assert.equal(outcome(await signIn(second, client, 'ada@example.com', PASSWORD)), '200');
    const attempts = (app: TestApp, from: number) => Promise.all(Array.from({ length: SIGN_IN_ATTEMPTS_PER_CLIENT / 2 }, (_, i) => signIn(app, client, `user${from + i}@example.com`, 'Summer2026!!')));
    const answers = [...(await attempts(first, 0)), ...(await attempts(second, 100))];
    assert.deepEqual(answers.map(outcome), Array<string>(SIGN_IN_ATTEMPTS_PER_CLIENT).fill(`401 ${SIGN_IN_REFUSED}`));
    assert.equal(outcome(await signIn(first, client, 'user999@example.com', 'Summer2026!!')), `429 ${SIGN_IN_CLIENT_LIMITED}`);
    assert.equal(outcome(await signIn(second, client, 'user998@example.com', 'Summer2026!!')), `429 ${SIGN_IN_CLIENT_LIMITED}`);
  });
});

describe(`${FLOOD} wrong sign-ins at once against mailroom serve`, () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  before(async () => {
    store = await freshStore();
    // At debug, the log says when each request has arrived (request-log.ts).
    server = await startServe({ ...store.env, LOG_LEVEL: 'debug' });
  });
  after(async () => {
    await server?.stop();
    await store?.drop();
  });

  it(`leave a dashboard page and a /dashboard/api read answering within ${DASHBOARD_ANSWER_MS} ms`, async (t) => {
    const token = (await waitFor(() => /\/setup\?token=([A-Za-z0-9_-]{43}) within an hour/.exec(server.output()), 'the setup link in the log'))[1];
    const body = { token, email: 'ada@example.com', password: PASSWORD, workspace_name: 'Acme' };
    const setup = await requestFrom('127.0.0.1', `${server.base}/dashboard/api/setup`, { method: 'POST', headers: { origin: server.base }, body });
    assert.equal(setup.status, 201, setup.body);
    const cookie = String(setup.headers['set-cookie']).split(';')[0]!;

    // Each from an address of its own (127.1.0.0/24: loopback too), half of them for a user who exists.
    const answered: PlainAnswer[] = [];
    let sent = 0;
    const flood = Array.from({ length: FLOOD }, (_, i) => {
      const email = i % 2 === 0 ? 'ada@example.com' : `nobody${i}@example.com`;
      const options = { method: 'POST', headers: { origin: server.base }, body: { email, password: `wrong ${i}` }, sent: () => sent++ };
      return requestFrom(`127.1.0.${i + 1}`, `${server.base}/dashboard/api/session`, options).then((answer) => (answered.push(answer), answer));
    });
    // Measured once the server has taken every one of them in, whatever it then does with them.
    const arrived = () => server.output().split('\n').filter((line) => line.includes('"method":"POST","url":"/dashboard/api/session"') && line.includes('"msg":"incoming request"')).length;
    await waitFor(() => sent === FLOOD && arrived() >= FLOOD, () => `the ${FLOOD} sign-ins sent (${sent}) and taken in (${arrived()})`, { intervalMs: 5 });

    const timings: string[] = [];
    let measuredDuringFlood = 0;
    for (let round = 0; round < 3; round++) {
      for (const path of ['/', '/dashboard/api/session']) {
        const started = performance.now();
        const answer = await requestFrom('127.0.0.1', `${server.base}${path}`, { headers: { cookie } });
        const ms = performance.now() - started;
        assert.equal(answer.status, 200, `${path}: ${answer.body.slice(0, 200)}`);
        if (answered.length < FLOOD) measuredDuringFlood++;
        timings.push(`${path} ${ms.toFixed(0)} ms`);
        assert.ok(ms < DASHBOARD_ANSWER_MS, `${path} answered in ${ms.toFixed(0)} ms while the sign-ins were being answered (${timings.join(', ')})`);
      }
    }
    assert.ok(measuredDuringFlood >= 2, `a page and a read answered while wrong sign-ins were still being hashed (${measuredDuringFlood} of ${timings.length}: ${timings.join(', ')})`);

    const outcomes = (await Promise.all(flood)).map((answer) => `${answer.status} ${JSON.parse(answer.body).error}`);
    const refused = outcomes.filter((o) => o === `401 ${SIGN_IN_REFUSED}`).length;
    const busy = outcomes.filter((o) => o === `429 ${HASHING_BUSY}`).length;
    assert.equal(refused + busy, FLOOD, outcomes.join('; '));
    assert.ok(refused > 0 && busy > 0, `${refused} refused after a hash, ${busy} told to wait`);
    t.diagnostic(`${timings.join(', ')}; ${measuredDuringFlood} during the flood; ${refused} refused after a hash, ${busy} told to wait`);

    // From a hundred addresses, none of them hers: Ada is not locked out.
    const right = await requestFrom('127.0.0.1', `${server.base}/dashboard/api/session`, { method: 'POST', headers: { origin: server.base }, body: { email: 'ada@example.com', password: PASSWORD } });
    assert.equal(right.status, 200, right.body);
  });
});
