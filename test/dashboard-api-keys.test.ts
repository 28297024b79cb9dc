/**
 * A workspace's API keys through the dashboard API (dashboard/api-key-routes.ts):
 * the same service as /v1/api-keys, each route checking the user's role in the
 * workspace on the server, and another workspace's ids answering 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MemberRole } from '../src/db/schema.js';
import { dashboardRequest, dashboardSignIn } from './helpers/dashboard-client.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const PASSWORD = 'correct horse 7';

describe('API keys in the dashboard API', () => {
  let t: TestApp;
  let round = 0;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  /** A user with `role` in the test's workspace, signed in. */
  async function member(role: MemberRole) {
    const email = `${role}${++round}@example.com`;
    await t.services.users.create({ email, password: PASSWORD, workspaceId: t.workspaceId, role });
    return dashboardSignIn(t, email, PASSWORD);
  }
  const keysPath = (workspaceId = t.workspaceId) => `/workspaces/${workspaceId}/api-keys`;

  it('creates a key an admin or developer can use on /v1 at once, lists it masked, and deletes it, refused at once after', async () => {
    for (const role of ['admin', 'developer'] as const) {
      const session = await member(role);
      const created = await dashboardRequest(t, 'POST', keysPath(), { ...session, body: { name: `CI (${role})` } });
      assert.equal(created.statusCode, 201, created.body);
      const key = created.json().data;
      assert.match(key.key, /^mr_/);
      assert.equal((await t.call('GET', '/v1/api-keys', { key: key.key })).statusCode, 200, 'the new key authenticates /v1');

      const listed = (await dashboardRequest(t, 'GET', keysPath(), session)).json().data as Array<Record<string, unknown>>;
      const row = listed.find((k) => k.id === key.id)!;
      assert.equal(row.masked_key, key.masked_key);
      assert.ok(!JSON.stringify(listed).includes(key.key), 'the list never holds a whole key');

      const deleted = await dashboardRequest(t, 'DELETE', `${keysPath()}/${key.id}`, session);
      assert.deepEqual([deleted.statusCode, deleted.json().data], [200, { id: key.id, deleted: true }]);
      assert.equal((await t.call('GET', '/v1/api-keys', { key: key.key })).statusCode, 401, 'refused at once');
    }
  });

  it("lets a viewer list keys, and refuses a viewer's forged create or delete with 403", async () => {
    const viewer = await member('viewer');
    assert.equal((await dashboardRequest(t, 'GET', keysPath(), viewer)).statusCode, 200);
    const before = (await t.services.apiKeys.list(t.workspaceId)).length;
    const forged = await dashboardRequest(t, 'POST', keysPath(), { ...viewer, body: { name: 'sneaky' } });
    assert.deepEqual([forged.statusCode, forged.json()], [403, { success: false, error: 'A viewer of this workspace cannot do this' }]);
    const [first] = await t.services.apiKeys.list(t.workspaceId);
    const del = await dashboardRequest(t, 'DELETE', `${keysPath()}/${first!.id}`, viewer);
    assert.equal(del.statusCode, 403);
    assert.equal((await t.services.apiKeys.list(t.workspaceId)).length, before, 'nothing created or deleted');
  });

  it("answers 404 for a workspace the user is not in, and for another workspace's key", async () => {
    const admin = await member('admin');
    const other = await t.newWorkspace('Not mine');
    const [otherKey] = await t.services.apiKeys.list(other.workspaceId);
    for (const [method, path, body] of [
      ['GET', keysPath(other.workspaceId), undefined],
      ['POST', keysPath(other.workspaceId), { name: 'x' }],
      ['DELETE', `${keysPath(other.workspaceId)}/${otherKey!.id}`, undefined],
    ] as const) {
      const res = await dashboardRequest(t, method, path, { ...admin, body });
      assert.deepEqual([res.statusCode, res.json()], [404, { success: false, error: 'Workspace not found' }], `${method} ${path}`);
    }
    const crossKey = await dashboardRequest(t, 'DELETE', `${keysPath()}/${otherKey!.id}`, admin);
    assert.deepEqual([crossKey.statusCode, crossKey.json().error], [404, 'API key not found']);
    assert.equal((await t.call('GET', '/v1/api-keys', { key: other.apiKey })).statusCode, 200, "the other workspace's key still works");
  });

  it('refuses a create without the CSRF token or with a bad name, saying why', async () => {
    const admin = await member('admin');
    const noCsrf = await dashboardRequest(t, 'POST', keysPath(), { cookie: admin.cookie, body: { name: 'x' } });
    assert.equal(noCsrf.statusCode, 403);
    const blank = await dashboardRequest(t, 'POST', keysPath(), { ...admin, body: { name: '  ' } });
    assert.deepEqual([blank.statusCode, blank.json().error], [400, 'name must not be empty']);
  });
});
