import assert from 'node:assert/strict';
import { after, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ValidationError } from '../src/lib/errors.js';
import { createSetupService, passwordHashing, SETUP_DONE, SETUP_LINK_REFUSED, SETUP_LINK_TTL_MS } from '../src/people/index.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const PASSWORD = 'correct horse 7';
const ORIGIN = 'http://mailroom.test';

describe('first-run setup: the first admin and workspace from a one-time link', () => {
  // A fresh store per test: setup is about a Mailroom with no users.
  let t: TestApp;
  beforeEach(async () => {
    await t?.close();
    t = await createTestApp();
  });
  after(() => t.close());

  const setup = (body: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/dashboard/api/setup', headers: { host: 'mailroom.test', origin: ORIGIN }, payload: body });
  const body = (token: string, overrides: Record<string, unknown> = {}) => ({ token, email: 'ada@example.com', password: PASSWORD, workspace_name: 'Acme', ...overrides });
  const countOf = async (table: 'users' | 'workspaces') => Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(t.db)).rows[0]!.n);

  it('creates the admin and the workspace, signs them in, and hands over the first API key, once', async () => {
    const token = (await t.services.setup.issueIfNoUsers())!;
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    const res = await setup(body(token));
    assert.equal(res.statusCode, 201, res.body);
    const { data } = res.json();
    assert.equal(data.user.email, 'ada@example.com');
    assert.deepEqual(data.workspaces, [{ id: data.workspaces[0].id, name: 'Acme', role: 'admin' }]);
    assert.match(String(res.headers['set-cookie']), /^mailroom_session=[A-Za-z0-9_-]{43};/);

    const cookie = String(res.headers['set-cookie']).split(';')[0]!;
    const me = await t.app.inject({ method: 'GET', url: '/dashboard/api/session', headers: { cookie } });
    assert.equal(me.json().data.user.id, data.user.id, 'signed in');
    const keys = await t.call('GET', '/v1/api-keys', { key: data.api_key });
    assert.equal(keys.statusCode, 200, 'the API key works on /v1');
    assert.equal(keys.json().data.length, 1);

    const again = await setup(body(token, { email: 'mallory@example.com' }));
    assert.deepEqual([again.statusCode, again.json().error], [400, SETUP_LINK_REFUSED]);
    assert.equal(await t.services.setup.issueIfNoUsers(), undefined, 'no new link once someone can sign in');
  });

  it('honours only the newest link, and refuses a made-up one', async () => {
    const first = (await t.services.setup.issueIfNoUsers())!;
    const second = (await t.services.setup.issueIfNoUsers())!;
    assert.deepEqual([(await setup(body(first))).statusCode, (await setup(body('x'.repeat(43)))).statusCode], [400, 400]);
    assert.equal((await setup(body(second))).statusCode, 201);
  });

  it('refuses bad input without using the link up', async () => {
    const token = (await t.services.setup.issueIfNoUsers())!;
    for (const [overrides, error] of [
      [{ password: 'too short' }, 'password must be at least 10 characters long'],
      [{ email: 'not an address' }, 'email must be an e-mail address, such as ada@example.com'],
      [{ workspace_name: ' ' }, 'workspace_name must be 1 to 100 characters long'],
    ] as const) {
      const res = await setup(body(token, overrides));
      assert.deepEqual([res.statusCode, res.json().error], [400, error]);
    }
    assert.equal((await setup(body(token))).statusCode, 201);
  });

  it('refuses a link whose Mailroom got a user meanwhile (the CLI), creating nothing', async () => {
    const token = (await t.services.setup.issueIfNoUsers())!;
    await t.services.users.create({ email: 'ops@example.com', password: PASSWORD });
    const [users, workspaces] = [await countOf('users'), await countOf('workspaces')];
    const res = await setup(body(token));
    assert.deepEqual([res.statusCode, res.json().error], [409, SETUP_DONE]);
    assert.deepEqual([await countOf('users'), await countOf('workspaces')], [users, workspaces]);
  });

  it('checks the link before it hashes anything, before the first run and after it', async () => {
    const hashes = () => passwordHashing.state().started;
    const before = hashes();
    const madeUp = await setup(body('x'.repeat(43)));
    assert.deepEqual([madeUp.statusCode, madeUp.json().error], [400, SETUP_LINK_REFUSED]);
    assert.equal(hashes(), before, 'a made-up link costs no hash');
    const token = (await t.services.setup.issueIfNoUsers())!;
    assert.equal((await setup(body(token))).statusCode, 201);
    assert.equal(hashes(), before + 1, "the first admin's password");
    for (const link of [token, 'y'.repeat(43)]) {
      const after = await setup(body(link, { email: 'mallory@example.com' }));
      assert.deepEqual([after.statusCode, after.json().error], [400, SETUP_LINK_REFUSED]);
    }
    assert.equal(hashes(), before + 1, 'after setup, the used link and a made-up one cost no hash');
  });

  it('refuses a link an hour old', async () => {
    let clock = Date.parse('2026-11-24T10:00:00.000Z');
    const service = createSetupService(t.store, () => new Date(clock));
    const token = (await service.issueIfNoUsers())!;
    clock += SETUP_LINK_TTL_MS;
    await assert.rejects(service.createFirstAdmin({ token, email: 'ada@example.com', password: PASSWORD, workspaceName: 'Acme' }), (error: Error) => {
      assert.ok(error instanceof ValidationError);
      assert.equal(error.message, SETUP_LINK_REFUSED);
      return true;
    });
    clock -= 1;
    assert.ok(await service.createFirstAdmin({ token, email: 'ada@example.com', password: PASSWORD, workspaceName: 'Acme' }), 'a millisecond earlier it works');
  });
});
