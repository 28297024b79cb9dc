/**
 * Workspaces and their members through the dashboard API (dashboard/member-routes.ts,
 * people/member-service.ts): creating a workspace, roles changed and members removed
 * by admins only, and never the last admin.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MemberRole } from '../src/db/schema.js';
import { LAST_ADMIN } from '../src/people/index.js';
import { dashboardRequest, signedInPerson } from './helpers/dashboard-client.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';


describe('workspaces and members in the dashboard API', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const person = (workspaceId?: string, role?: MemberRole) => signedInPerson(t, workspaceId, role);

  it('creates a workspace whose creator is its admin, with a first API key that works on /v1', async () => {
    const ada = await person();
    const res = await dashboardRequest(t, 'POST', '/workspaces', { ...ada, body: { name: ' Side project ' } });
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json().data;
    assert.deepEqual({ ...created, id: undefined, api_key: undefined }, { id: undefined, name: 'Side project', role: 'admin', api_key: undefined });
    assert.equal((await t.call('GET', '/v1/api-keys', { key: created.api_key })).statusCode, 200);
    const me = (await dashboardRequest(t, 'GET', '/session', ada)).json().data;
    assert.deepEqual(me.workspaces, [{ id: created.id, name: 'Side project', role: 'admin' }]);
    const blank = await dashboardRequest(t, 'POST', '/workspaces', { ...ada, body: { name: '' } });
    assert.deepEqual([blank.statusCode, blank.json().error], [400, 'name must be 1 to 100 characters long']);
    // A NUL was a 500 on PostgreSQL, whose text cannot hold one.
    const nul = await dashboardRequest(t, 'POST', '/workspaces', { ...ada, body: { name: 'Side\u0000project' } });
    assert.deepEqual([nul.statusCode, nul.json().error], [400, 'name must not contain line breaks or control characters']);
  });

  it('renames a workspace for its admins only, under the rule of its creation', async () => {
    const ws = await t.newWorkspace('Old name');
    const admin = await person(ws.workspaceId, 'admin');
    const dev = await person(ws.workspaceId, 'developer');
    const outsider = await person();
    const renamed = await dashboardRequest(t, 'PATCH', `/workspaces/${ws.workspaceId}`, { ...admin, body: { name: ' New name ' } });
    assert.deepEqual([renamed.statusCode, renamed.json().data], [200, { id: ws.workspaceId, name: 'New name' }]);
    assert.deepEqual((await dashboardRequest(t, 'GET', '/session', dev)).json().data.workspaces, [{ id: ws.workspaceId, name: 'New name', role: 'developer' }]);
    const refused = await dashboardRequest(t, 'PATCH', `/workspaces/${ws.workspaceId}`, { ...dev, body: { name: 'Mine' } });
    assert.deepEqual([refused.statusCode, refused.json()], [403, { success: false, error: 'A developer of this workspace cannot do this' }]);
    assert.equal((await dashboardRequest(t, 'PATCH', `/workspaces/${ws.workspaceId}`, { ...outsider, body: { name: 'Mine' } })).statusCode, 404);
    const blank = await dashboardRequest(t, 'PATCH', `/workspaces/${ws.workspaceId}`, { ...admin, body: { name: '  ' } });
    assert.deepEqual([blank.statusCode, blank.json().error], [400, 'name must be 1 to 100 characters long']);
    assert.equal((await dashboardRequest(t, 'GET', '/session', admin)).json().data.workspaces[0].name, 'New name', 'unchanged by the refusals');
  });

  it('lists the members to everyone in the workspace, and to no one else', async () => {
    const ws = await t.newWorkspace('Team');
    const admin = await person(ws.workspaceId, 'admin');
    const viewer = await person(ws.workspaceId, 'viewer');
    const outsider = await person();
    const listed = await dashboardRequest(t, 'GET', `/workspaces/${ws.workspaceId}/members`, viewer);
    assert.equal(listed.statusCode, 200);
    assert.deepEqual(
      (listed.json().data as Array<{ email: string; role: string }>).map((m) => [m.email, m.role]),
      [[admin.email, 'admin'], [viewer.email, 'viewer']],
    );
    assert.equal((await dashboardRequest(t, 'GET', `/workspaces/${ws.workspaceId}/members`, outsider)).statusCode, 404);
  });

  it('lets an admin change roles and remove members, and refuses the same to a developer', async () => {
    const ws = await t.newWorkspace('Roles');
    const admin = await person(ws.workspaceId, 'admin');
    const dev = await person(ws.workspaceId, 'developer');
    const viewer = await person(ws.workspaceId, 'viewer');
    const byDev = await dashboardRequest(t, 'PATCH', `/workspaces/${ws.workspaceId}/members/${viewer.id}`, { ...dev, body: { role: 'admin' } });
    assert.deepEqual([byDev.statusCode, byDev.json().error], [403, 'A developer of this workspace cannot do this']);

    const promoted = await dashboardRequest(t, 'PATCH', `/workspaces/${ws.workspaceId}/members/${viewer.id}`, { ...admin, body: { role: 'developer' } });
    assert.deepEqual(promoted.json().data, { user_id: viewer.id, role: 'developer' });
    assert.equal((await dashboardRequest(t, 'POST', `/workspaces/${ws.workspaceId}/api-keys`, { ...viewer, body: { name: 'now allowed' } })).statusCode, 201, 'the new role counts at once');

    const removed = await dashboardRequest(t, 'DELETE', `/workspaces/${ws.workspaceId}/members/${dev.id}`, admin);
    assert.deepEqual(removed.json().data, { user_id: dev.id, removed: true });
    assert.equal((await dashboardRequest(t, 'GET', `/workspaces/${ws.workspaceId}/api-keys`, dev)).statusCode, 404, 'a removed member no longer sees the workspace');
    const bad = await dashboardRequest(t, 'PATCH', `/workspaces/${ws.workspaceId}/members/${viewer.id}`, { ...admin, body: { role: 'owner' } });
    assert.deepEqual([bad.statusCode, bad.json().error], [400, 'role must be one of admin, developer, viewer']);
    const nobody = await dashboardRequest(t, 'DELETE', `/workspaces/${ws.workspaceId}/members/usr_01jx9c1r7t5b2n4m6p8q0r2s4t`, admin);
    assert.deepEqual([nobody.statusCode, nobody.json().error], [404, 'Member not found']);
  });

  it('never leaves a workspace without an admin: the last one can be neither demoted nor removed', async () => {
    const ws = await t.newWorkspace('Last admin');
    const admin = await person(ws.workspaceId, 'admin');
    for (const [method, body] of [['PATCH', { role: 'viewer' }], ['DELETE', undefined]] as const) {
      const res = await dashboardRequest(t, method, `/workspaces/${ws.workspaceId}/members/${admin.id}`, { ...admin, body });
      assert.deepEqual([res.statusCode, res.json().error], [409, LAST_ADMIN], method);
    }
    const second = await person(ws.workspaceId, 'admin');
    assert.equal((await dashboardRequest(t, 'PATCH', `/workspaces/${ws.workspaceId}/members/${admin.id}`, { ...admin, body: { role: 'viewer' } })).statusCode, 200, 'with a second admin, the first may step down');
    const last = await dashboardRequest(t, 'DELETE', `/workspaces/${ws.workspaceId}/members/${second.id}`, second);
    assert.deepEqual([last.statusCode, last.json().error], [409, LAST_ADMIN]);
  });

  it('keeps one admin when the two admins demote each other at the same moment', async () => {
    const ws = await t.newWorkspace('Race');
    const a = await person(ws.workspaceId, 'admin');
    const b = await person(ws.workspaceId, 'admin');
    const results = await Promise.all([
      dashboardRequest(t, 'PATCH', `/workspaces/${ws.workspaceId}/members/${b.id}`, { ...a, body: { role: 'viewer' } }),
      dashboardRequest(t, 'PATCH', `/workspaces/${ws.workspaceId}/members/${a.id}`, { ...b, body: { role: 'viewer' } }),
    ]);
    const admins = (await t.services.members.list(ws.workspaceId)).filter((m) => m.role === 'admin');
    assert.equal(admins.length, 1, `one admin is left (answers ${results.map((r) => r.statusCode).join(', ')})`);
  });
});
