/**
 * The suppression list through the dashboard API (dashboard/suppression-routes.ts): the same service as
 * /v1/suppressions, the role checked on the server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MemberRole } from '../src/db/schema.js';
import { dashboardRequest, dashboardSignIn } from './helpers/dashboard-client.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';

const PASSWORD = 'correct horse 7';

describe('suppressions in the dashboard API', () => {
  let t: TestApp;
  let round = 0;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '1000' });
  });
  after(() => t.close());

  async function member(role: MemberRole) {
    const email = `${role}${++round}@example.com`;
    await t.services.users.create({ email, password: PASSWORD, workspaceId: t.workspaceId, role });
    return dashboardSignIn(t, email, PASSWORD);
  }
  const path = (suffix = '') => `/workspaces/${t.workspaceId}/suppressions${suffix}`;

  it('adds an address, finds it whatever its case, lists it with its reason, and removes it: sends to it go out again', async () => {
    const dev = await member('developer');
    const added = await dashboardRequest(t, 'POST', path(), { ...dev, body: { email: 'Gone@Example.com' } });
    assert.equal(added.statusCode, 201, added.body);
    assert.deepEqual({ ...added.json().data, created_at: undefined }, { email: 'gone@example.com', reason: 'manual', source_message_id: null, created_at: undefined });
    const again = await dashboardRequest(t, 'POST', path(), { ...dev, body: { email: 'gone@example.com' } });
    assert.equal(again.statusCode, 200, 'already listed: unchanged');

    assert.equal((await t.call('POST', '/v1/send', { body: sendBody({ to: ['gone@example.com'] }) })).json().data.status, 'suppressed', '/v1 sees the same list');
    const found = await dashboardRequest(t, 'GET', path(`/${encodeURIComponent('GONE@example.com')}`), dev);
    assert.equal(found.json().data.email, 'gone@example.com');
    const listed = (await dashboardRequest(t, 'GET', path('?reason=manual'), dev)).json().data;
    assert.ok(listed.total >= 1 && listed.entries.some((e: { email: string }) => e.email === 'gone@example.com'));
    assert.equal((await dashboardRequest(t, 'GET', path('?reason=complaint'), dev)).json().data.entries.length, 0);

    const removed = await dashboardRequest(t, 'DELETE', path(`/${encodeURIComponent('gone@example.com')}`), dev);
    assert.deepEqual(removed.json().data, { email: 'gone@example.com', deleted: true });
    assert.equal((await dashboardRequest(t, 'GET', path(`/${encodeURIComponent('gone@example.com')}`), dev)).statusCode, 404);
    assert.equal((await t.call('POST', '/v1/send', { body: sendBody({ to: ['gone@example.com'] }) })).json().data.status, 'sent');
  });

  it("lets a viewer look but not add or remove; another workspace's list answers 404", async () => {
    const viewer = await member('viewer');
    assert.equal((await dashboardRequest(t, 'GET', path(), viewer)).statusCode, 200);
    const forged = await dashboardRequest(t, 'POST', path(), { ...viewer, body: { email: 'x@example.com' } });
    assert.deepEqual([forged.statusCode, forged.json().error], [403, 'A viewer of this workspace cannot do this']);
    const other = await t.newWorkspace();
    assert.equal((await dashboardRequest(t, 'GET', `/workspaces/${other.workspaceId}/suppressions`, viewer)).statusCode, 404);
  });
});
