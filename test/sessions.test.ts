import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { RateLimitError, UnauthorizedError, ValidationError } from '../src/lib/errors.js';
import {
  createSessionService,
  LOCKOUT_FAILURES,
  LOCKOUT_WINDOW_MS,
  SESSION_IDLE_MS,
  SESSION_LIFETIME_MS,
  SIGN_IN_LOCKED,
  SIGN_IN_REFUSED,
  verifyPassword,
} from '../src/people/index.js';
import { createMemoryRateLimiter } from '../src/lib/rate-limiter.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const PASSWORD = 'correct horse 7';
const CLIENT = '192.0.2.10';

describe('dashboard sessions (people/session-service.ts)', () => {
  let t: TestApp;
  let clock: number;
  let sessions: ReturnType<typeof createSessionService>;
  let email: string;
  let userId: string;
  let round = 0;

  before(async () => {
    t = await createTestApp();
  });
  beforeEach(async () => {
    // A user of their own per test, and a clock the test moves.
    clock = Date.parse('2026-11-24T10:00:00.000Z');
    sessions = createSessionService(t.store, createMemoryRateLimiter(), () => new Date(clock));
    email = `user${++round}@example.com`;
    userId = (await t.services.users.create({ email, password: PASSWORD, workspaceId: t.workspaceId, role: 'viewer' })).id;
  });
  after(() => t.close());

  const refusedWith = (message: string, type: new (...args: never[]) => Error) => (error: Error) => {
    assert.ok(error instanceof type, String(error));
    assert.equal(error.message, message);
    return true;
  };

  it('opens a session for the right password; the store keeps only the hash of its 256-bit token', async () => {
    const signedIn = await sessions.signIn({ email: email.toUpperCase(), password: PASSWORD, clientAddress: CLIENT });
    assert.match(signedIn.token, /^[A-Za-z0-9_-]{43}$/);
    assert.match(signedIn.csrfToken, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(signedIn.token, signedIn.csrfToken);
    assert.deepEqual(signedIn.user, { id: userId, email });
    const rows = await sql<{ token_hash: string }>`select token_hash from sessions where user_id = ${userId}`.execute(t.db);
    assert.deepEqual(rows.rows, [{ token_hash: createHash('sha256').update(signedIn.token).digest('hex') }]);
    const session = await sessions.authenticate(signedIn.token);
    assert.deepEqual(session && { userId: session.userId, csrfToken: session.csrfToken }, { userId, csrfToken: signedIn.csrfToken });
    // The last character of 32 bytes in base64url is one of 16 (A, E, I, …): change it to one it cannot be.
    const another = `${signedIn.token.slice(0, -1)}B`;
    assert.equal(await sessions.authenticate(another), undefined, 'another token opens nothing');
  });

  it('answers an unknown address exactly as a wrong password, after the same scrypt work', async () => {
    const timed = async (input: { email: string; password: string }) => {
      const started = performance.now();
      await assert.rejects(sessions.signIn({ ...input, clientAddress: CLIENT }), refusedWith(SIGN_IN_REFUSED, UnauthorizedError));
      return performance.now() - started;
    };
    const wrong = await timed({ email, password: 'not the password' });
    const unknown = await timed({ email: 'nobody@example.com', password: PASSWORD });
    // A hash check takes a good part of a fifth of a second here; a look-up that found no one takes a millisecond.
    assert.ok(wrong > 50 && unknown > 50, `both did a hash check: wrong password ${wrong.toFixed(0)} ms, unknown address ${unknown.toFixed(0)} ms`);
  });

  it(`locks an address from one client after ${LOCKOUT_FAILURES} failures in 15 minutes, right password or not, until the oldest is out of the window`, async () => {
    for (let i = 0; i < LOCKOUT_FAILURES; i++) {
      await assert.rejects(sessions.signIn({ email, password: `wrong ${i}`, clientAddress: CLIENT }), refusedWith(SIGN_IN_REFUSED, UnauthorizedError));
      clock += 1000;
    }
    await assert.rejects(sessions.signIn({ email, password: PASSWORD, clientAddress: CLIENT }), (error: Error) => {
      assert.ok(error instanceof RateLimitError);
      assert.equal(error.message, SIGN_IN_LOCKED);
      // The first failure was 10 s ago: it leaves the window in 15 minutes less 10 s.
      assert.equal(error.retryAfterSeconds, LOCKOUT_WINDOW_MS / 1000 - LOCKOUT_FAILURES);
      return true;
    });
    // The same address from another client, and another address from this one, are not locked.
    assert.ok(await sessions.signIn({ email, password: PASSWORD, clientAddress: '198.51.100.7' }));
    clock += LOCKOUT_WINDOW_MS - LOCKOUT_FAILURES * 1000 + 1;
    assert.ok(await sessions.signIn({ email, password: PASSWORD, clientAddress: CLIENT }), 'the oldest failure has left the window');
  });

  it('forgets the failures of an address and client at a successful sign-in', async () => {
    for (let i = 0; i < LOCKOUT_FAILURES - 1; i++) await assert.rejects(sessions.signIn({ email, password: 'wrong', clientAddress: CLIENT }));
    assert.ok(await sessions.signIn({ email, password: PASSWORD, clientAddress: CLIENT }));
    for (let i = 0; i < LOCKOUT_FAILURES - 1; i++) await assert.rejects(sessions.signIn({ email, password: 'wrong', clientAddress: CLIENT }), refusedWith(SIGN_IN_REFUSED, UnauthorizedError));
  });

  it('ends a session unused for 7 days, and any session 30 days after sign-in however much it is used', async () => {
    const idle = await sessions.signIn({ email, password: PASSWORD, clientAddress: CLIENT });
    const busy = await sessions.signIn({ email, password: PASSWORD, clientAddress: CLIENT });
    clock += SESSION_IDLE_MS - 60_000;
    assert.ok(await sessions.authenticate(busy.token));
    clock += 60_000;
    assert.equal(await sessions.authenticate(idle.token), undefined, '7 days without use');
    assert.ok(await sessions.authenticate(busy.token), 'used a minute ago');
    while (clock < Date.parse('2026-11-24T10:00:00.000Z') + SESSION_LIFETIME_MS - 60_000) {
      clock += 6 * 86_400_000;
      if (clock >= Date.parse('2026-11-24T10:00:00.000Z') + SESSION_LIFETIME_MS) break;
      assert.ok(await sessions.authenticate(busy.token), `still open on ${new Date(clock).toISOString()}`);
    }
    clock = Date.parse('2026-11-24T10:00:00.000Z') + SESSION_LIFETIME_MS;
    assert.equal(await sessions.authenticate(busy.token), undefined, '30 days after sign-in');
    const left = await sql<{ n: number }>`select count(*) as n from sessions where user_id = ${userId}`.execute(t.db);
    assert.equal(Number(left.rows[0]!.n), 0, 'both ended in the store too');
  });

  it('signs out: the token opens nothing any more', async () => {
    const signedIn = await sessions.signIn({ email, password: PASSWORD, clientAddress: CLIENT });
    const session = (await sessions.authenticate(signedIn.token))!;
    await sessions.signOut(session);
    assert.equal(await sessions.authenticate(signedIn.token), undefined);
  });

  it('changes the password given the current one, and ends every other session of the user', async () => {
    const here = await sessions.signIn({ email, password: PASSWORD, clientAddress: CLIENT });
    const elsewhere = await sessions.signIn({ email, password: PASSWORD, clientAddress: '198.51.100.7' });
    const session = (await sessions.authenticate(here.token))!;
    await assert.rejects(sessions.changePassword(session, 'not it at all', 'a new password 1'), refusedWith('current_password is not your password', ValidationError));
    await assert.rejects(sessions.changePassword(session, PASSWORD, 'too short'), refusedWith('new_password must be at least 10 characters long', ValidationError));
    assert.ok(await sessions.authenticate(elsewhere.token), 'a refused change ends nothing');

    assert.deepEqual(await sessions.changePassword(session, PASSWORD, 'a new password 1'), { endedSessions: 1 });
    assert.ok(await sessions.authenticate(here.token), 'this session goes on');
    assert.equal(await sessions.authenticate(elsewhere.token), undefined, 'the other one ended');
    assert.equal(await verifyPassword('a new password 1', (await t.store.users.findById(userId))!.password_hash), true);
    await assert.rejects(sessions.signIn({ email, password: PASSWORD, clientAddress: CLIENT }), refusedWith(SIGN_IN_REFUSED, UnauthorizedError));
    assert.ok(await sessions.signIn({ email, password: 'a new password 1', clientAddress: CLIENT }));
  });
});
