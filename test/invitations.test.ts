/**
 * Workspace invitations (people/invitation-service.ts, dashboard/invitation-routes.ts):
 * single-use links, valid for 7 days, made by admins only; joining with a new account
 * or as the signed-in user; used, expired and revoked links refused alike; two
 * simultaneous accepts give one member.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { MemberRole } from '../src/db/schema.js';
import { ALREADY_MEMBER, createInvitationService, INVITATION_REFUSED, INVITATION_TTL_MS } from '../src/people/index.js';
import { dashboardRequest, dashboardSignIn, PERSON_PASSWORD, setCookieOf, signedInPerson } from './helpers/dashboard-client.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const PASSWORD = PERSON_PASSWORD;
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const tokenOf = (path: string) => new URL(path, 'http://x').searchParams.get('token')!;

describe('workspace invitations', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const person = (workspaceId?: string, role?: MemberRole) => signedInPerson(t, workspaceId, role);

  /** A workspace with its admin signed in. */
  async function team(name = 'Acme') {
    const ws = await t.newWorkspace(name);
    return { workspaceId: ws.workspaceId, admin: await person(ws.workspaceId, 'admin') };
  }

  async function invite(workspaceId: string, admin: { cookie: string; csrf: string }, role: MemberRole = 'developer') {
    const res = await dashboardRequest(t, 'POST', `/workspaces/${workspaceId}/invitations`, { ...admin, body: { role } });
    assert.equal(res.statusCode, 201, res.body);
    const data = res.json().data as { id: string; path: string; role: string; invited_by: string; created_at: string; expires_at: string };
    return { ...data, token: tokenOf(data.path) };
  }

  const joinWithAccount = (token: string, email: string, password = PASSWORD) =>
    dashboardRequest(t, 'POST', `/invitations/${token}/account`, { body: { email, password } });

  /** [email, role] of each member, by role then address (the stores order case differently). */
  const membersOf = async (workspaceId: string) =>
    (await t.services.members.list(workspaceId)).map((m) => [m.email, m.role]).sort((a, b) => `${a[1]} ${a[0]}`.localeCompare(`${b[1]} ${b[0]}`));

  it('lets an admin make a link valid for 7 days, keeping only the hash of its 256-bit token', async () => {
    const { workspaceId, admin } = await team();
    const made = await invite(workspaceId, admin, 'viewer');
    assert.match(made.path, /^\/invite\?token=[A-Za-z0-9_-]{43}$/);
    assert.match(made.id, /^inv_[0-9a-z]{26}$/);
    assert.deepEqual([made.role, made.invited_by], ['viewer', admin.email]);
    assert.equal(Date.parse(made.expires_at) - Date.parse(made.created_at), INVITATION_TTL_MS);

    const { rows } = await sql<Record<string, unknown>>`select * from invitations where id = ${made.id}`.execute(t.db);
    assert.equal(rows[0]!.token_hash, sha256(made.token));
    assert.ok(!JSON.stringify(rows).includes(made.token), 'the token itself is stored nowhere');
    assert.deepEqual([rows[0]!.created_by, rows[0]!.accepted_at, rows[0]!.revoked_at], [admin.id, null, null]);

    const listed = await dashboardRequest(t, 'GET', `/workspaces/${workspaceId}/invitations`, admin);
    assert.deepEqual(listed.json().data, [{ id: made.id, role: 'viewer', invited_by: admin.email, created_at: made.created_at, expires_at: made.expires_at }]);
    const bad = await dashboardRequest(t, 'POST', `/workspaces/${workspaceId}/invitations`, { ...admin, body: { role: 'owner' } });
    assert.deepEqual(bad.json(), { success: false, error: 'role must be one of admin, developer, viewer' });
  });

  it("refuses developers and viewers with 403, and answers another workspace's admin 404", async () => {
    const { workspaceId, admin } = await team();
    const made = await invite(workspaceId, admin);
    for (const role of ['developer', 'viewer'] as const) {
      const member = await person(workspaceId, role);
      for (const [method, path, body] of [
        ['POST', `/workspaces/${workspaceId}/invitations`, { role: 'admin' }],
        ['GET', `/workspaces/${workspaceId}/invitations`, undefined],
        ['DELETE', `/workspaces/${workspaceId}/invitations/${made.id}`, undefined],
      ] as const) {
        const res = await dashboardRequest(t, method, path, { ...member, body });
        assert.deepEqual([res.statusCode, res.json()], [403, { success: false, error: `A ${role} of this workspace cannot do this` }], `${role} ${method}`);
      }
    }
    const other = await team('Other');
    for (const [method, body] of [['POST', { role: 'viewer' }], ['GET', undefined]] as const) {
      const res = await dashboardRequest(t, method, `/workspaces/${workspaceId}/invitations`, { ...other.admin, body });
      assert.deepEqual([res.statusCode, res.json()], [404, { success: false, error: 'Workspace not found' }], method);
    }
    const revoke = await dashboardRequest(t, 'DELETE', `/workspaces/${other.workspaceId}/invitations/${made.id}`, other.admin);
    assert.deepEqual([revoke.statusCode, revoke.json().error], [404, 'Invitation not found'], "another workspace's invitation is not found in one's own");
    assert.equal((await dashboardRequest(t, 'GET', `/invitations/${made.token}`)).statusCode, 200, 'and it is still usable');
  });

  it('shows what the link offers to anyone holding it, and joins a new account with its role, signed in at once', async () => {
    const { workspaceId, admin } = await team('Acme');
    const made = await invite(workspaceId, admin, 'viewer');
    const preview = await dashboardRequest(t, 'GET', `/invitations/${made.token}`);
    assert.deepEqual(preview.json(), { success: true, data: { workspace_name: 'Acme', role: 'viewer', invited_by: admin.email, expires_at: made.expires_at } });

    const joined = await joinWithAccount(made.token, ' New.Viewer@example.com ');
    assert.equal(joined.statusCode, 201, joined.body);
    const data = joined.json().data;
    assert.deepEqual({ ...data, csrf_token: undefined, user: { ...data.user, id: undefined } }, {
      user: { id: undefined, email: 'New.Viewer@example.com' },
      csrf_token: undefined,
      workspaces: [{ id: workspaceId, name: 'Acme', role: 'viewer' }],
      workspace_id: workspaceId,
    });
    assert.match(setCookieOf(joined), /^mailroom_session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/);
    const viewer = { cookie: setCookieOf(joined).split(';')[0]!, csrf: data.csrf_token as string };
    const session = await dashboardRequest(t, 'GET', '/session', viewer);
    assert.deepEqual(session.json().data.workspaces, [{ id: workspaceId, name: 'Acme', role: 'viewer' }]);
    const forged = await dashboardRequest(t, 'POST', `/workspaces/${workspaceId}/api-keys`, { ...viewer, body: { name: 'not mine to make' } });
    assert.deepEqual([forged.statusCode, forged.json()], [403, { success: false, error: 'A viewer of this workspace cannot do this' }]);
    assert.deepEqual(await membersOf(workspaceId), [[admin.email, 'admin'], ['New.Viewer@example.com', 'viewer']]);
    const signIn = await dashboardSignIn(t, 'new.viewer@example.com', PASSWORD);
    assert.equal(signIn.body.data.user.id, data.user.id, 'the password works for signing in later');

    const { rows } = await sql<{ accepted_by: string; accepted_at: string | null }>`select accepted_by, accepted_at from invitations where id = ${made.id}`.execute(t.db);
    assert.equal(rows[0]!.accepted_by, data.user.id);
    assert.ok(rows[0]!.accepted_at);
    const pending = await dashboardRequest(t, 'GET', `/workspaces/${workspaceId}/invitations`, admin);
    assert.deepEqual(pending.json().data, [], 'a used invitation is no longer pending');
  });

  it('refuses a used link the second time, in every way, with the same sentence as an unknown one', async () => {
    const { workspaceId, admin } = await team();
    const made = await invite(workspaceId, admin);
    assert.equal((await joinWithAccount(made.token, `first@example.com`)).statusCode, 201);
    const someone = await person();
    const refusals = [
      await dashboardRequest(t, 'GET', `/invitations/${made.token}`),
      await joinWithAccount(made.token, `second@example.com`),
      await dashboardRequest(t, 'POST', `/invitations/${made.token}/accept`, someone),
      await dashboardRequest(t, 'GET', `/invitations/${made.token.slice(0, -1)}B`),
      await dashboardRequest(t, 'GET', '/invitations/nonsense'),
    ];
    for (const res of refusals) assert.deepEqual([res.statusCode, res.json()], [404, { success: false, error: INVITATION_REFUSED }]);
    assert.equal(await t.store.users.findByEmail(`second@example.com`), undefined, 'a refused link leaves no account behind');
    assert.equal((await membersOf(workspaceId)).length, 2);
  });

  it('refuses a link from the moment it is 7 days old', async () => {
    const { workspaceId, admin } = await team();
    // Made a week and an hour ago, by a service whose clock the test moves.
    let clock = Date.now() - INVITATION_TTL_MS - 3_600_000;
    const invitations = createInvitationService(t.store, () => new Date(clock));
    const made = await invitations.create(workspaceId, admin.id, 'developer');
    const token = tokenOf(made.path);
    clock += INVITATION_TTL_MS - 1;
    assert.equal((await invitations.preview(token)).role, 'developer', 'usable until the last millisecond');
    assert.equal((await invitations.listPending(workspaceId)).length, 1);
    clock += 1;
    await assert.rejects(invitations.preview(token), { message: INVITATION_REFUSED });
    await assert.rejects(invitations.acceptWithAccount({ token, email: `late@example.com`, password: PASSWORD }), { message: INVITATION_REFUSED });
    assert.deepEqual(await invitations.listPending(workspaceId), [], 'an expired invitation is not pending');
    // The app's own clock is an hour past that week: it refuses the link too.
    const res = await joinWithAccount(token, `late@example.com`);
    assert.deepEqual([res.statusCode, res.json().error], [404, INVITATION_REFUSED]);
  });

  it('refuses a revoked link, and revokes only what is pending', async () => {
    const { workspaceId, admin } = await team();
    const made = await invite(workspaceId, admin);
    const revoked = await dashboardRequest(t, 'DELETE', `/workspaces/${workspaceId}/invitations/${made.id}`, admin);
    assert.deepEqual(revoked.json(), { success: true, data: { id: made.id, revoked: true } });
    const refused = await joinWithAccount(made.token, `revoked@example.com`);
    assert.deepEqual([refused.statusCode, refused.json().error], [404, INVITATION_REFUSED]);
    assert.equal((await dashboardRequest(t, 'GET', `/invitations/${made.token}`)).statusCode, 404);
    assert.deepEqual((await dashboardRequest(t, 'GET', `/workspaces/${workspaceId}/invitations`, admin)).json().data, []);
    const again = await dashboardRequest(t, 'DELETE', `/workspaces/${workspaceId}/invitations/${made.id}`, admin);
    assert.deepEqual([again.statusCode, again.json().error], [404, 'Invitation not found']);
    const { rows } = await sql<{ revoked_by: string }>`select revoked_by from invitations where id = ${made.id}`.execute(t.db);
    assert.equal(rows[0]!.revoked_by, admin.id);
  });

  it('gives one membership to simultaneous accepts, and the others a refusal and no account', async () => {
    const { workspaceId, admin } = await team();
    const made = await invite(workspaceId, admin, 'viewer');
    const emails = ['a', 'b', 'c', 'd'].map((racer) => `racer-${racer}@example.com`);
    const answers = await Promise.all(emails.map((email) => joinWithAccount(made.token, email)));
    assert.deepEqual(answers.map((r) => r.statusCode).sort(), [201, 404, 404, 404], answers.map((r) => r.body).join('\n'));
    assert.equal((await membersOf(workspaceId)).length, 2, 'the admin and one newcomer');
    const accounts = await Promise.all(emails.map((email) => t.store.users.findByEmail(email)));
    assert.equal(accounts.filter(Boolean).length, 1, 'the refused ones have no account');

    const second = await invite(workspaceId, admin, 'developer');
    const [a, b] = [await person(), await person()];
    const accepts = await Promise.all([a, b].map((p) => dashboardRequest(t, 'POST', `/invitations/${second.token}/accept`, p)));
    assert.deepEqual(accepts.map((r) => r.statusCode).sort(), [200, 404]);
    assert.equal((await membersOf(workspaceId)).length, 3);
  });

  it('joins a signed-in user, with the session CSRF token; a member already is refused and the link left for someone else', async () => {
    const { workspaceId, admin } = await team('Joined');
    const made = await invite(workspaceId, admin, 'developer');
    const ada = await person();
    assert.equal((await dashboardRequest(t, 'POST', `/invitations/${made.token}/accept`)).statusCode, 401, 'signed out: sign in first');
    const noCsrf = await dashboardRequest(t, 'POST', `/invitations/${made.token}/accept`, { cookie: ada.cookie });
    assert.deepEqual([noCsrf.statusCode, noCsrf.json().error], [403, 'CSRF token missing or wrong']);

    const member = await dashboardRequest(t, 'POST', `/invitations/${made.token}/accept`, admin);
    assert.deepEqual([member.statusCode, member.json()], [409, { success: false, error: ALREADY_MEMBER }]);
    assert.equal((await dashboardRequest(t, 'GET', `/invitations/${made.token}`)).statusCode, 200, 'still usable');

    const joined = await dashboardRequest(t, 'POST', `/invitations/${made.token}/accept`, ada);
    assert.deepEqual(joined.json(), { success: true, data: { workspace_id: workspaceId, role: 'developer' } });
    const session = await dashboardRequest(t, 'GET', '/session', ada);
    assert.deepEqual(session.json().data.workspaces, [{ id: workspaceId, name: 'Joined', role: 'developer' }]);
    assert.equal((await dashboardRequest(t, 'POST', `/workspaces/${workspaceId}/api-keys`, { ...ada, body: { name: 'deploys' } })).statusCode, 201);
  });

  it('leaves the link unused when the account cannot be made, and refuses a new account from another origin', async () => {
    const { workspaceId, admin } = await team();
    const made = await invite(workspaceId, admin);
    const short = await joinWithAccount(made.token, `short@example.com`, 'too short');
    assert.deepEqual([short.statusCode, short.json().error], [400, 'password must be at least 10 characters long']);
    const badEmail = await joinWithAccount(made.token, 'not an address');
    assert.deepEqual([badEmail.statusCode, badEmail.json().error], [400, 'email must be an e-mail address, such as ada@example.com']);
    const taken = await joinWithAccount(made.token, admin.email.toUpperCase());
    assert.deepEqual([taken.statusCode, taken.json().error], [409, `A user with the e-mail address ${admin.email.toUpperCase()} exists: sign in to join with this link`]);
    for (const origin of ['https://evil.example', null]) {
      const res = await dashboardRequest(t, 'POST', `/invitations/${made.token}/account`, { origin, body: { email: `cross@example.com`, password: PASSWORD } });
      assert.deepEqual([res.statusCode, res.json().error], [403, 'Cross-origin request refused'], String(origin));
    }
    assert.equal((await dashboardRequest(t, 'GET', `/invitations/${made.token}`)).statusCode, 200, 'after all that, the link is still usable');
    assert.deepEqual(await membersOf(workspaceId), [[admin.email, 'admin']]);
  });
});
