/**
 * The logs and statistics of a workspace through the dashboard API
 * (dashboard/activity-routes.ts): the same answers as /v1/send/logs and
 * /v1/send/stats, for every role of the workspace and for no one else; and
 * a test e-mail sent from the dashboard (dashboard/send-routes.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dashboardRequest, dashboardSignIn, signedInPerson } from './helpers/dashboard-client.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';

const PASSWORD = 'correct horse 7';

describe('logs and statistics in the dashboard API', () => {
  let t: TestApp;
  let viewer: Awaited<ReturnType<typeof dashboardSignIn>>;
  let outsider: Awaited<ReturnType<typeof dashboardSignIn>>;
  const base = () => `/workspaces/${t.workspaceId}`;

  before(async () => {
    t = await createTestApp({ WORKER_ENABLED: 'false' });
    await t.services.users.create({ email: 'viewer@example.com', password: PASSWORD, workspaceId: t.workspaceId, role: 'viewer' });
    await t.services.users.create({ email: 'outsider@example.com', password: PASSWORD });
    viewer = await dashboardSignIn(t, 'viewer@example.com', PASSWORD);
    outsider = await dashboardSignIn(t, 'outsider@example.com', PASSWORD);
    for (const to of ['ada@example.com', 'bob@example.com', 'cyd@example.com']) {
      assert.equal((await t.call('POST', '/v1/send', { body: sendBody({ to: [to], subject: `For ${to}` }) })).json().data.status, 'sent');
    }
  });
  after(() => t.close());

  it('answers a page of the log and its total, newest first, with the filters of /v1/send/logs', async () => {
    const res = await dashboardRequest(t, 'GET', `${base()}/logs?limit=2`, viewer);
    assert.equal(res.statusCode, 200, res.body);
    const { entries, total } = res.json().data;
    const v1 = await t.call('GET', '/v1/send/logs?limit=2');
    assert.deepEqual(entries, v1.json().data, 'the same entries as /v1');
    assert.deepEqual(total, { count: 3, relation: 'eq' });
    assert.deepEqual(entries.map((e: { to: string }) => e.to), ['cyd@example.com', 'bob@example.com']);
    const one = (await dashboardRequest(t, 'GET', `${base()}/logs?to=BOB@example.com&status=sent`, viewer)).json().data;
    assert.deepEqual([one.entries.length, one.entries[0].subject, one.total.count], [1, 'For bob@example.com', 1]);
    const unknown = await dashboardRequest(t, 'GET', `${base()}/logs?colour=red`, viewer);
    assert.equal(unknown.statusCode, 400);
  });

  it('answers the statistics and the time series as /v1 does', async () => {
    const stats = await dashboardRequest(t, 'GET', `${base()}/stats`, viewer);
    assert.deepEqual(stats.json().data, (await t.call('GET', '/v1/send/stats')).json().data);
    assert.equal(stats.json().data.total_sent, 3);
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const series = await dashboardRequest(t, 'GET', `${base()}/stats/timeseries?interval=hour&since=${since}`, viewer);
    assert.deepEqual(series.json().data, (await t.call('GET', `/v1/send/stats/timeseries?interval=hour&since=${since}`)).json().data);
    const bad = await dashboardRequest(t, 'GET', `${base()}/stats?since=yesterday`, viewer);
    assert.equal(bad.statusCode, 400);
  });

  it('sends a test e-mail for a developer through the rules of /v1/send, and not for a viewer', async () => {
    const developer = await signedInPerson(t, t.workspaceId, 'developer');
    const domains = await dashboardRequest(t, 'GET', `${base()}/sender-domains`, viewer);
    assert.deepEqual(domains.json().data, ['sandbox.mailroom.test'], 'the sandbox domain, and no unverified one');
    const body = { from_email: 'test@sandbox.mailroom.test', to: ['dev@example.com'], subject: 'A test from Mailroom', text: 'It works.' };
    const sent = await dashboardRequest(t, 'POST', `${base()}/send`, { ...developer, body });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.equal(sent.json().data.status, 'sent');
    assert.equal(sent.headers['x-ratelimit-limit'], undefined, "no API key's limit is drawn from");
    const logged = (await t.call('GET', `/v1/send/logs?message_id=${sent.json().data.message_id}`)).json().data;
    assert.deepEqual(logged.map((e: { to: string; subject: string }) => [e.to, e.subject]), [['dev@example.com', 'A test from Mailroom']]);
    const unverified = await dashboardRequest(t, 'POST', `${base()}/send`, { ...developer, body: { ...body, from_email: 'me@nowhere.example' } });
    assert.deepEqual([unverified.json().data.status, unverified.json().data.error], ['failed', 'Sender domain nowhere.example is not a domain of this workspace; add and verify it first']);
    const invalid = await dashboardRequest(t, 'POST', `${base()}/send`, { ...developer, body: { ...body, to: ['not an address'] } });
    assert.equal(invalid.statusCode, 400);
    const refused = await dashboardRequest(t, 'POST', `${base()}/send`, { ...viewer, body });
    assert.deepEqual([refused.statusCode, refused.json().error], [403, 'A viewer of this workspace cannot do this']);
  });

  it('shows another workspace nothing: 404 for its logs, statistics and sending', async () => {
    assert.equal((await dashboardRequest(t, 'GET', `${base()}/sender-domains`, outsider)).statusCode, 404);
    for (const path of ['/logs', '/stats', '/stats/timeseries']) {
      const res = await dashboardRequest(t, 'GET', `${base()}${path}`, outsider);
      assert.deepEqual([res.statusCode, res.json()], [404, { success: false, error: 'Workspace not found' }], path);
    }
  });
});
