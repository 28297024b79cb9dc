/**
 * TRUST_PROXY (http/trust-proxy.ts) against a real listening Mailroom behind a real proxy that
 * appends to X-Forwarded-For as nginx does: what a client writes in the header is not its address
 * for the sign-in lock-out or the rate limits, and the proxy's X-Forwarded-Proto makes the session
 * cookie Secure.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ConfigError, loadConfig } from '../src/config.js';
import { LOCKOUT_FAILURES, SIGN_IN_ATTEMPTS_PER_CLIENT, SIGN_IN_CLIENT_LIMITED, SIGN_IN_LOCKED, SIGN_IN_REFUSED } from '../src/people/index.js';
import { requestFrom, startForwardingProxy, type ForwardingProxy, type PlainAnswer } from './helpers/forwarding-proxy.js';
import { listenOnLoopback } from './helpers/listening-app.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const PASSWORD = 'correct horse 7';
/** The name people reach the dashboard at, as the proxy passes it on in Host. */
const HOST = 'mail.example.test';

/** A new address from TEST-NET-3 each call: what a client would put in X-Forwarded-For to be someone else. */
let forged = 0;
const forgedAddress = () => `203.0.113.${++forged % 250}, 198.51.100.${forged % 250}`;

const bodyOf = (answer: PlainAnswer) => JSON.parse(answer.body) as { success: boolean; error?: string };

/** POST /dashboard/api/session from the loopback address `from` to `base` (Mailroom, or the proxy in front of it). */
function signIn(from: string, base: string, email: string, password: string, headers: Record<string, string>) {
  return requestFrom(from, `${base}/dashboard/api/session`, { method: 'POST', headers: { host: HOST, ...headers }, body: { email, password } });
}

describe('TRUST_PROXY', () => {
  it('takes a number of proxies, or their addresses and CIDR ranges; false or unset trusts nobody', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '2' }).trustProxy, { hops: 2 });
    assert.deepEqual(loadConfig({ TRUST_PROXY: '127.0.0.1, ::1,10.0.0.0/8,fd00::/8,loopback' }).trustProxy, { proxies: ['127.0.0.1', '::1', '10.0.0.0/8', 'fd00::/8', 'loopback'] });
  });

  it('refuses true at start, saying why and what to write instead', () => {
    assert.throws(
      () => loadConfig({ TRUST_PROXY: 'true' }),
      (error: unknown) => error instanceof ConfigError && /any client could choose its own address/.test(error.message) && /TRUST_PROXY=127\.0\.0\.1/.test(error.message),
    );
  });
});

for (const trust of ['1', '127.0.0.1'] as const) {
  describe(`behind a proxy appending to X-Forwarded-For as nginx does, TRUST_PROXY=${trust}`, () => {
    let t: TestApp;
    let proxy: ForwardingProxy;
    let email: string;
    let round = 0;
    before(async () => {
      t = await createTestApp({ TRUST_PROXY: trust });
      proxy = await startForwardingProxy(await listenOnLoopback(t));
    });
    after(async () => {
      await proxy.close();
      await t.close();
    });

    const newUser = async () => {
      email = `person${++round}@example.com`;
      await t.services.users.create({ email, password: PASSWORD, workspaceId: t.workspaceId, role: 'viewer' });
      return email;
    };
    // Through the proxy the request is https, as X-Forwarded-Proto reports: the Origin a browser sends then.
    const viaProxy = (from: string, address: string, password: string, xff = forgedAddress()) =>
      signIn(from, proxy.url, address, password, { origin: `https://${HOST}`, 'x-forwarded-for': xff });

    it(`locks 25 wrong passwords from one client out of the account after ${LOCKOUT_FAILURES} and out of sign-in after ${SIGN_IN_ATTEMPTS_PER_CLIENT}, though each forges a new X-Forwarded-For`, async () => {
      const address = await newUser();
      const statuses: string[] = [];
      for (let i = 0; i < 25; i++) {
        const answer = await viaProxy('127.0.0.2', address, `wrong ${i}`);
        statuses.push(`${answer.status} ${bodyOf(answer).error}`);
      }
      const expected = [
        ...Array<string>(LOCKOUT_FAILURES).fill(`401 ${SIGN_IN_REFUSED}`),
        ...Array<string>(SIGN_IN_ATTEMPTS_PER_CLIENT - LOCKOUT_FAILURES).fill(`429 ${SIGN_IN_LOCKED}`),
        ...Array<string>(25 - SIGN_IN_ATTEMPTS_PER_CLIENT).fill(`429 ${SIGN_IN_CLIENT_LIMITED}`),
      ];
      assert.deepEqual(statuses, expected);
      const failures = await sql<{ client_address: string }>`select distinct client_address from sign_in_failures where email = ${address}`.execute(t.db);
      assert.deepEqual(failures.rows, [{ client_address: '127.0.0.2' }], 'counted under the address that connected to the proxy');

      // The lock is that client's: another one signs in, and its cookie is Secure (https as the proxy reports it, no PUBLIC_URL).
      const elsewhere = await viaProxy('127.0.0.3', address, PASSWORD);
      assert.equal(elsewhere.status, 200, elsewhere.body);
      assert.match(String(elsewhere.headers['set-cookie']), /^mailroom_session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    });

    it('answers 429 to bad API keys past 60 a minute from one client, though each forges a new X-Forwarded-For', async () => {
      const call = (from: string) => requestFrom(from, `${proxy.url}/v1/domains`, { headers: { 'x-api-key': 'mr_not_a_key', 'x-forwarded-for': forgedAddress() } });
      const statuses: number[] = [];
      for (let i = 0; i < 70; i++) statuses.push((await call('127.0.0.4')).status);
      assert.deepEqual(statuses, [...Array<number>(60).fill(401), ...Array<number>(10).fill(429)]);
      const other = await call('127.0.0.5');
      assert.deepEqual([other.status, other.headers['x-ratelimit-remaining']], [401, '59'], 'another client has a budget of its own');
    });
  });
}

describe('TRUST_PROXY=127.0.0.1, a client connecting directly', () => {
  let t: TestApp;
  let mailroom: string;
  before(async () => {
    t = await createTestApp({ TRUST_PROXY: '127.0.0.1' });
    mailroom = await listenOnLoopback(t);
    await t.services.users.create({ email: 'ada@example.com', password: PASSWORD });
  });
  after(() => t.close());

  it("is taken at its connection's address and scheme, whatever X-Forwarded-For and -Proto it sends", async () => {
    const forgedHeaders = { origin: `http://${HOST}`, 'x-forwarded-for': '192.0.2.1', 'x-forwarded-proto': 'https' };
    const wrong = await signIn('127.0.0.6', mailroom, 'ada@example.com', 'not the password', forgedHeaders);
    assert.deepEqual([wrong.status, bodyOf(wrong).error], [401, SIGN_IN_REFUSED]);
    const failures = await sql<{ client_address: string }>`select client_address from sign_in_failures where email = 'ada@example.com'`.execute(t.db);
    assert.deepEqual(failures.rows, [{ client_address: '127.0.0.6' }]);

    const right = await signIn('127.0.0.6', mailroom, 'ada@example.com', PASSWORD, forgedHeaders);
    assert.equal(right.status, 200, right.body);
    assert.match(String(right.headers['set-cookie']), /; HttpOnly; SameSite=Lax$/, 'plain http: no Secure for a forged X-Forwarded-Proto');
  });
});
