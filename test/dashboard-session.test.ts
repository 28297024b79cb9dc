/**
 * The dashboard API's sessions over HTTP (dashboard/session-routes.ts and
 * session-guard.ts): the cookie, the CSRF token and Origin checks, sign-out,
 * the password change, and that none of it touches /v1's keys.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DASHBOARD_REQUESTS_PER_MIN } from '../src/dashboard/session-guard.js';
import { dashboardRequest, dashboardSignIn, setCookieOf, type DashboardCall } from './helpers/dashboard-client.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const PASSWORD = 'correct horse 7';

describe('dashboard API sessions', () => {
  let t: TestApp;
  let round = 0;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  async function newUser(): Promise<string> {
    const email = `person${++round}@example.com`;
    await t.services.users.create({ email, password: PASSWORD, workspaceId: t.workspaceId, role: 'admin' });
    return email;
  }

  const request = (method: string, url: string, options: DashboardCall = {}) => dashboardRequest(t, method, url, options);
  const cookieOf = setCookieOf;
  const signIn = (email: string, password = PASSWORD) => dashboardSignIn(t, email, password);

  it('signs in with a session cookie (HttpOnly, SameSite=Lax, 30 days) and answers who is signed in and where', async () => {
    const email = await newUser();
    const { cookie, csrf, setCookie, body } = await signIn(email.toUpperCase());
    assert.match(setCookie, /^mailroom_session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/);
    assert.deepEqual(body.data.workspaces, [{ id: t.workspaceId, name: 'Test workspace', role: 'admin' }]);
    assert.equal(body.data.user.email, email);

    const me = await request('GET', '/session', { cookie });
    assert.equal(me.statusCode, 200);
    assert.deepEqual(me.json().data, { user: body.data.user, csrf_token: csrf, workspaces: body.data.workspaces });
  });

  it('answers 401 without a session, and for a wrong password, in the envelope', async () => {
    const email = await newUser();
    assert.deepEqual([(await request('GET', '/session')).statusCode, (await request('GET', '/session')).json()], [401, { success: false, error: 'Sign in first' }]);
    const wrong = await request('POST', '/session', { body: { email, password: 'not the password' } });
    assert.deepEqual([wrong.statusCode, wrong.json()], [401, { success: false, error: 'Wrong e-mail address or password' }]);
    assert.equal(wrong.headers['set-cookie'], undefined);
    // An address no user can have, a NUL in it, answers the same (it was a 500 on PostgreSQL, whose text cannot hold one).
    const nul = await request('POST', '/session', { body: { email: `${email}\u0000`, password: 'not the password' } });
    assert.deepEqual([nul.statusCode, nul.json()], [401, { success: false, error: 'Wrong e-mail address or password' }]);
  });

  it('refuses a state-changing request without the CSRF token, with a wrong one, or from another origin', async () => {
    const { cookie, csrf } = await signIn(await newUser());
    for (const [options, error] of [
      [{ cookie }, 'CSRF token missing or wrong'],
      [{ cookie, csrf: `${csrf.slice(0, -1)}x` }, 'CSRF token missing or wrong'],
      [{ cookie, csrf, origin: 'https://evil.example' }, 'Cross-origin request refused'],
      [{ cookie, csrf, origin: null }, 'Cross-origin request refused'],
    ] as const) {
      const res = await request('DELETE', '/session', options);
      assert.deepEqual([res.statusCode, res.json()], [403, { success: false, error }], JSON.stringify(options));
    }
    assert.equal((await request('GET', '/session', { cookie })).statusCode, 200, 'the session is still open');
    const crossSignIn = await request('POST', '/session', { origin: 'https://evil.example', body: { email: 'x@example.com', password: PASSWORD } });
    assert.equal(crossSignIn.statusCode, 403, 'a sign-in from another origin (login CSRF) is refused too');
  });

  it('signs out: the cookie is cleared and opens nothing any more', async () => {
    const { cookie, csrf } = await signIn(await newUser());
    const out = await request('DELETE', '/session', { cookie, csrf });
    assert.equal(out.statusCode, 200, out.body);
    assert.match(cookieOf(out), /^mailroom_session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/);
    assert.equal((await request('GET', '/session', { cookie })).statusCode, 401);
  });

  it('changes the password, ending the other session and keeping this one', async () => {
    const email = await newUser();
    const here = await signIn(email);
    const elsewhere = await signIn(email);
    const short = await request('POST', '/session/password', { ...here, body: { current_password: PASSWORD, new_password: 'short' } });
    assert.deepEqual([short.statusCode, short.json().error], [400, 'new_password must be at least 10 characters long']);
    const changed = await request('POST', '/session/password', { ...here, body: { current_password: PASSWORD, new_password: 'another good one' } });
    assert.deepEqual([changed.statusCode, changed.json()], [200, { success: true, data: { ended_sessions: 1 } }]);
    assert.equal((await request('GET', '/session', { cookie: here.cookie })).statusCode, 200);
    assert.equal((await request('GET', '/session', { cookie: elsewhere.cookie })).statusCode, 401);
    await signIn(email, 'another good one');
  });

  it(`limits each session to ${DASHBOARD_REQUESTS_PER_MIN} requests a minute, its own budget`, async () => {
    const email = await newUser();
    const busy = await signIn(email);
    const other = await signIn(email);
    for (let i = 0; i < DASHBOARD_REQUESTS_PER_MIN; i++) assert.equal((await request('GET', '/session', { cookie: busy.cookie })).statusCode, 200);
    const limited = await request('GET', '/session', { cookie: busy.cookie });
    assert.deepEqual([limited.statusCode, limited.json().error], [429, 'Rate limit exceeded']);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal((await request('GET', '/session', { cookie: other.cookie })).statusCode, 200, 'another session has a budget of its own');
    assert.equal((await t.call('GET', '/v1/api-keys')).statusCode, 200, 'and so do the API keys');
  });

  it('sends its security headers on every answer, and keeps /v1 as it was', async () => {
    const res = await request('GET', '/session');
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline'?[^;]*script|script-src[^;]*unsafe-inline/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    // Served over plain HTTP on a private address, the page must still load its own scripts.
    assert.doesNotMatch(csp, /upgrade-insecure-requests/);
    assert.equal(res.headers['strict-transport-security'], undefined, "HSTS is the TLS proxy's decision");
    // A session is no API key, and the dashboard does not touch the keys' budget.
    const { cookie } = await signIn(await newUser());
    const v1 = await t.app.inject({ method: 'GET', url: '/v1/api-keys', headers: { cookie } });
    assert.deepEqual([v1.statusCode, v1.json()], [401, { success: false, error: 'Invalid or missing API key' }]);
    assert.equal(v1.headers['content-security-policy'], undefined, '/v1 answers as before');
    assert.equal(res.headers['x-ratelimit-limit'], undefined, 'the dashboard draws on no API key budget');
  });
});

describe('dashboard API sessions behind PUBLIC_URL https://mail.example.com', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ PUBLIC_URL: 'https://mail.example.com/' });
    await t.services.users.create({ email: 'ada@example.com', password: PASSWORD });
  });
  after(() => t.close());

  const signIn = (origin: string) =>
    t.app.inject({ method: 'POST', url: '/dashboard/api/session', headers: { host: '127.0.0.1:3000', origin }, payload: { email: 'ada@example.com', password: PASSWORD } });

  it('sets a Secure cookie, and takes state-changing requests from that origin only', async () => {
    const res = await signIn('https://mail.example.com');
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['set-cookie']), /; HttpOnly; Secure; SameSite=Lax$/);
    const fromHost = await signIn('http://127.0.0.1:3000');
    assert.deepEqual([fromHost.statusCode, fromHost.json().error], [403, 'Cross-origin request refused']);
  });
});
