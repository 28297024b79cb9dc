/**
 * A workspace's upstreams and its domains' routes through the dashboard API
 * (dashboard/upstream-routes.ts, domain-routes.ts): the service behind
 * /v1/upstreams, each route checking the user's role on the server, another
 * workspace's ids answering 404, credentials masked in every answer, and the
 * domain list carrying each domain's route. The connection test talks to a
 * real SMTP server on loopback that asks for AUTH.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MemberRole } from '../src/db/schema.js';
import { dashboardRequest, signedInPerson } from './helpers/dashboard-client.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const RELAY_PASSWORD = 's3cret-relay-pass-word';
const VIEWER_REFUSED = { success: false, error: 'A viewer of this workspace cannot do this' };

type Session = { cookie: string; csrf: string };

describe('upstreams and domain routes in the dashboard API', () => {
  let t: TestApp;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink({ auth: { user: 'mailroom', pass: RELAY_PASSWORD } });
    t = await createTestApp({ UPSTREAM_ALLOW_PRIVATE: 'true' });
  });
  after(async () => {
    await t.close();
    await sink.close();
  });

  const member = (role: MemberRole, workspaceId = t.workspaceId): Promise<Session> => signedInPerson(t, workspaceId, role);
  const ws = (suffix: string, workspaceId = t.workspaceId) => `/workspaces/${workspaceId}${suffix}`;
  const call = (session: Session, method: string, url: string, body?: unknown) => dashboardRequest(t, method, url, { ...session, body });
  const relay = (password: string) => `smtp://mailroom:${password}@127.0.0.1:${sink.port}`;

  it('adds an SMTP upstream for a developer, masks its password everywhere, and tests it against the relay', async () => {
    const dev = await member('developer');
    const created = await call(dev, 'POST', ws('/upstreams'), { name: 'Loopback relay', type: 'smtp', url: relay(RELAY_PASSWORD), starttls: 'never' });
    assert.equal(created.statusCode, 201, created.body);
    const upstream = created.json().data;
    assert.equal(upstream.url, `smtp://mailroom:********@127.0.0.1:${sink.port}`);
    assert.deepEqual([upstream.health, upstream.domains, upstream.last_hour.attempts], ['healthy', [], 0]);

    const answers = [created, await call(dev, 'GET', ws('/upstreams')), await call(dev, 'GET', ws(`/upstreams/${upstream.id}`))];
    for (const res of answers) assert.ok(!res.body.includes(RELAY_PASSWORD), `no password in ${res.body}`);

    const tested = await call(dev, 'POST', ws(`/upstreams/${upstream.id}/test`));
    assert.equal(tested.statusCode, 200, tested.body);
    assert.equal(tested.json().data.ok, true, tested.body);
    assert.deepEqual(sink.authenticated, ['mailroom']);

    // A blank password field leaves the secret as it was: the relay still takes it.
    const renamed = await call(dev, 'PATCH', ws(`/upstreams/${upstream.id}`), { name: 'Loopback relay (renamed)', url: `smtp://mailroom@127.0.0.1:${sink.port}` });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json().data.url, upstream.url);
    assert.equal((await call(dev, 'POST', ws(`/upstreams/${upstream.id}/test`))).json().data.ok, true);

    const wrong = await call(dev, 'PATCH', ws(`/upstreams/${upstream.id}`), { url: relay('not-the-password') });
    assert.equal(wrong.statusCode, 200, wrong.body);
    const failed = (await call(dev, 'POST', ws(`/upstreams/${upstream.id}/test`))).json().data;
    assert.equal(failed.ok, false);
    assert.match(failed.detail, /535/);
  });

  it('sets a domain’s route in order, lists it with the domains, and refuses to delete an upstream while it is on one', async () => {
    const admin = await member('admin');
    const add = async (name: string) => (await call(admin, 'POST', ws('/upstreams'), { name, type: 'smtp', url: `smtp://127.0.0.1:${sink.port}` })).json().data.id as string;
    const [first, second] = [await add('Primary'), await add('Backup')];
    const domain = (await call(admin, 'POST', ws('/domains'), { domain: 'routed.example' })).json().data;

    const routed = await call(admin, 'PATCH', ws(`/domains/${domain.id}`), { upstream_ids: [second, first] });
    assert.equal(routed.statusCode, 200, routed.body);
    assert.deepEqual(routed.json().data.upstream_ids, [second, first]);
    const listed = (await call(admin, 'GET', ws('/domains'))).json().data as { id: string; upstream_ids: string[] }[];
    assert.deepEqual(listed.find((d) => d.id === domain.id)?.upstream_ids, [second, first]);
    assert.deepEqual((await t.call('GET', '/v1/domains')).json().data.find((d: { id: string }) => d.id === domain.id), {
      id: domain.id, domain: 'routed.example', status: 'pending', created_at: domain.created_at,
    }, "/v1's list keeps SPEC.md's four fields");

    const refused = await call(admin, 'DELETE', ws(`/upstreams/${first}`));
    assert.equal(refused.statusCode, 409);
    assert.match(refused.json().error, /routed\.example/);
    assert.equal((await call(admin, 'PATCH', ws(`/domains/${domain.id}`), { upstream_ids: [first, first] })).statusCode, 400);

    assert.equal((await call(admin, 'PATCH', ws(`/domains/${domain.id}`), { upstream_ids: [] })).statusCode, 200);
    assert.deepEqual((await call(admin, 'DELETE', ws(`/upstreams/${first}`))).json().data, { id: first, deleted: true });
  });

  it('lets a viewer read upstreams and routes, and nothing more', async () => {
    const viewer = await member('viewer');
    const [upstream] = (await call(viewer, 'GET', ws('/upstreams'))).json().data as { id: string }[];
    assert.ok(upstream);
    assert.equal((await call(viewer, 'GET', ws(`/upstreams/${upstream.id}`))).statusCode, 200);
    const domain = ((await call(viewer, 'GET', ws('/domains'))).json().data as { id: string }[])[0]!;
    for (const [method, url, body] of [
      ['POST', ws('/upstreams'), { name: 'Mine', type: 'smtp', url: `smtp://127.0.0.1:${sink.port}` }],
      ['PATCH', ws(`/upstreams/${upstream.id}`), { name: 'Mine' }],
      ['DELETE', ws(`/upstreams/${upstream.id}`), undefined],
      ['POST', ws(`/upstreams/${upstream.id}/test`), undefined],
      ['PATCH', ws(`/domains/${domain.id}`), { upstream_ids: [] }],
    ] as const) {
      const res = await call(viewer, method, url, body);
      assert.deepEqual([res.statusCode, res.json()], [403, VIEWER_REFUSED], `${method} ${url}`);
    }
  });

  it("answers 404 for another workspace's upstreams, as for unknown ones", async () => {
    const other = await t.newWorkspace('Other');
    const outsider = await member('admin', other.workspaceId);
    const [upstream] = (await t.call('GET', '/v1/upstreams')).json().data as { id: string }[];
    for (const [method, url] of [
      ['GET', ws(`/upstreams/${upstream!.id}`, other.workspaceId)],
      ['POST', ws(`/upstreams/${upstream!.id}/test`, other.workspaceId)],
      ['DELETE', ws(`/upstreams/${upstream!.id}`, other.workspaceId)],
    ] as const) {
      const res = await call(outsider, method, url);
      assert.deepEqual([res.statusCode, res.json().error], [404, 'Upstream not found'], `${method} ${url}`);
    }
    assert.deepEqual((await call(outsider, 'GET', ws('/upstreams', other.workspaceId))).json().data, []);
  });
});
