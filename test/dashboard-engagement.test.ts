/**
 * A workspace's opens and clicks through the dashboard API
 * (dashboard/activity-routes.ts): the hourly counts of its own workspace, and
 * never another's, for every role and for no one else; the same answer as
 * /v1/send/stats/engagement.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EngagementHourlyTable } from '../src/db/schema.js';
import { dashboardRequest, signedInPerson } from './helpers/dashboard-client.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const HOUR_MS = 3_600_000;

type Counts = Omit<EngagementHourlyTable, 'workspace_id' | 'hour'>;
const ZERO: Counts = { opened: 0, unique_opened: 0, clicked: 0, unique_clicked: 0, machine_opened: 0, machine_clicked: 0, tracked_opens: 0, tracked_clicks: 0 };

describe('engagement in the dashboard API', () => {
  let t: TestApp;
  let viewer: Awaited<ReturnType<typeof signedInPerson>>;
  let outsider: Awaited<ReturnType<typeof signedInPerson>>;
  const base = () => `/workspaces/${t.workspaceId}`;
  /** Whole hours counted back from the current one. */
  const thisHour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
  const hoursAgo = (n: number) => new Date(thisHour - n * HOUR_MS).toISOString();
  const recent: Counts = { opened: 140, unique_opened: 120, clicked: 61, unique_clicked: 48, machine_opened: 35, machine_clicked: 9, tracked_opens: 286, tracked_clicks: 250 };
  const older: Counts = { opened: 7, unique_opened: 5, clicked: 3, unique_clicked: 2, machine_opened: 4, machine_clicked: 1, tracked_opens: 20, tracked_clicks: 18 };

  before(async () => {
    t = await createTestApp({ WORKER_ENABLED: 'false' });
    viewer = await signedInPerson(t, t.workspaceId, 'viewer');
    outsider = await signedInPerson(t);
    const other = await t.newWorkspace('Other');
    const half = (c: Counts, first: boolean) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, first ? Math.floor(v / 2) : v - Math.floor(v / 2)])) as Counts;
    // The recent counts over two hours (they add up), the older ones two days back, and the other workspace's in the same hours.
    await t.db
      .insertInto('engagement_hourly')
      .values([
        { workspace_id: t.workspaceId, hour: hoursAgo(0), ...half(recent, true) },
        { workspace_id: t.workspaceId, hour: hoursAgo(3), ...half(recent, false) },
        { workspace_id: t.workspaceId, hour: hoursAgo(48), ...older },
        { workspace_id: other.workspaceId, hour: hoursAgo(0), ...recent },
        { workspace_id: other.workspaceId, hour: hoursAgo(48), ...recent },
      ])
      .execute();
  });
  after(() => t.close());

  it('answers a viewer the counts of the workspace over the period, widened to whole hours', async () => {
    const since = new Date(thisHour - 23 * HOUR_MS + 1_234).toISOString();
    const res = await dashboardRequest(t, 'GET', `${base()}/engagement?since=${encodeURIComponent(since)}`, viewer);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().data, recent);
    assert.deepEqual(res.json().data, (await t.call('GET', `/v1/send/stats/engagement?since=${encodeURIComponent(since)}`)).json().data, 'the answer of /v1');
  });

  it('counts all time without a range, and nothing in a range without rows', async () => {
    const all = (await dashboardRequest(t, 'GET', `${base()}/engagement`, viewer)).json().data as Counts;
    assert.deepEqual(all, Object.fromEntries(Object.keys(ZERO).map((k) => [k, recent[k as keyof Counts] + older[k as keyof Counts]])));
    const empty = await dashboardRequest(t, 'GET', `${base()}/engagement?since=${hoursAgo(40)}&until=${hoursAgo(30)}`, viewer);
    assert.deepEqual(empty.json().data, ZERO);
  });

  it('refuses a bad range, and shows another workspace nothing', async () => {
    const bad = await dashboardRequest(t, 'GET', `${base()}/engagement?since=yesterday`, viewer);
    assert.equal(bad.statusCode, 400);
    const unknown = await dashboardRequest(t, 'GET', `${base()}/engagement?colour=red`, viewer);
    assert.equal(unknown.statusCode, 400);
    const res = await dashboardRequest(t, 'GET', `${base()}/engagement`, outsider);
    assert.deepEqual([res.statusCode, res.json()], [404, { success: false, error: 'Workspace not found' }]);
  });
});
