/**
 * A workspace's webhooks through the dashboard API (dashboard/webhook-routes.ts):
 * the same service as /v1/webhooks, each route checking the user's role on the
 * server, another workspace's ids answering 404, and test events posted by the
 * real dispatcher to a real receiver on loopback, signed as Standard Webhooks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { MemberRole } from '../src/db/schema.js';
import { newId } from '../src/lib/ids.js';
import { SUCCESS_RATE_WINDOW } from '../src/webhooks/webhook-service.js';
import { dashboardRequest, dashboardSignIn } from './helpers/dashboard-client.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { startWebhookReceiver, type ReceivedHook, type WebhookReceiver } from './helpers/webhook-receiver.js';
import { waitFor } from './helpers/wait-for.js';

const PASSWORD = 'correct horse 7';
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const VIEWER_REFUSED = { success: false, error: 'A viewer of this workspace cannot do this' };

type Session = { cookie: string; csrf: string };
interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  state: string;
  attempts: number;
  last_status: number | null;
  next_attempt_at: string | null;
}

describe('webhooks in the dashboard API', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  /** What the receiver answers next: a test sets it to make a post fail. */
  let answer = 200;
  let round = 0;
  before(async () => {
    receiver = await startWebhookReceiver(() => answer);
    // A failed post waits a minute for its retry: long enough that only a retry asked for posts it again within the test.
    t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '60000' }, { webhooks: true });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  async function member(role: MemberRole, workspaceId = t.workspaceId): Promise<Session> {
    const email = `${role}${++round}@example.com`;
    await t.services.users.create({ email, password: PASSWORD, workspaceId, role });
    return dashboardSignIn(t, email, PASSWORD);
  }
  const path = (suffix = '', workspaceId = t.workspaceId) => `/workspaces/${workspaceId}/webhooks${suffix}`;
  const call = (session: Session, method: string, url: string, body?: unknown) => dashboardRequest(t, method, url, { ...session, body });
  async function created(session: Session, body: Record<string, unknown> = { url: receiver.url }) {
    const res = await call(session, 'POST', path(), body);
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data as { id: string; url: string; events: string[]; secret: string };
  }
  const detail = async (session: Session, id: string) => (await call(session, 'GET', path(`/${id}`))).json().data as { deliveries: Delivery[] };
  const deliveryOf = async (session: Session, id: string, deliveryId: string) => (await detail(session, id)).deliveries.find((d) => d.id === deliveryId);
  const postsOf = (deliveryId: string) => receiver.received.filter((h) => h.headers['webhook-id'] === deliveryId);
  /** For waitFor: the first post of the delivery once there is one. */
  const firstPostOf = (deliveryId: string) => () => postsOf(deliveryId)[0];
  const verified = (secret: string, hook: ReceivedHook) =>
    new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>) as Record<string, unknown>;

  it('creates an endpoint with its secret shown once, lists it without the secret, and shows it with no deliveries yet', async () => {
    for (const role of ['admin', 'developer'] as const) {
      const session = await member(role);
      const hook = await created(session, { url: receiver.url, events: ['bounced', 'delivered'] });
      assert.match(hook.secret, SECRET);
      assert.deepEqual(hook.events, ['delivered', 'bounced'], "in the API's order");

      const listed = await call(session, 'GET', path());
      assert.equal(listed.statusCode, 200);
      const row = (listed.json().data as Array<Record<string, unknown>>).find((w) => w.id === hook.id)!;
      assert.deepEqual(
        [row.url, row.events, row.recent_deliveries, row.success_rate],
        [receiver.url, ['delivered', 'bounced'], { finished: 0, delivered: 0 }, null],
      );
      assert.ok(!listed.body.includes(hook.secret.slice(6)), 'the list never holds the secret');
      const shown = await call(session, 'GET', path(`/${hook.id}`));
      assert.deepEqual([shown.statusCode, shown.json().data.deliveries], [200, []]);
      assert.ok(!shown.body.includes(hook.secret.slice(6)), 'nor does the detail');
    }
  });

  it('sends a signed test event to the endpoint whatever it subscribes to, recorded as a delivery that verifies with standardwebhooks', async () => {
    const admin = await member('admin');
    const hook = await created(admin, { url: receiver.url, events: ['complained'] });
    const queued = await call(admin, 'POST', path(`/${hook.id}/test`));
    assert.equal(queued.statusCode, 202, queued.body);
    const delivery = queued.json().data as Delivery;
    assert.deepEqual([delivery.event_type, delivery.state, delivery.attempts, delivery.last_status], ['test', 'pending', 0, null]);
    assert.match(delivery.next_attempt_at!, ISO);

    const received = await waitFor(firstPostOf(delivery.id), 'the test event at the receiver');
    const payload = verified(hook.secret, received);
    assert.deepEqual(Object.keys(payload).sort(), ['event', 'id', 'timestamp', 'workspace_id']);
    assert.deepEqual([payload.event, payload.id, payload.workspace_id], ['test', delivery.event_id, t.workspaceId]);
    assert.match(String(payload.timestamp), ISO);
    assert.equal(received.headers['x-service-signature'], received.headers['webhook-signature'], "SPEC.md's header too");

    const done = await waitFor(async () => {
      const d = await deliveryOf(admin, hook.id, delivery.id);
      return d?.state === 'delivered' ? d : undefined;
    }, 'the delivery recorded as delivered');
    assert.deepEqual([done.attempts, done.last_status, done.next_attempt_at], [1, 200, null]);
    const attempts = await t.store.webhookDeliveries.listAttempts(delivery.id);
    assert.deepEqual(attempts.map((a) => [Number(a.attempt), a.status_code]), [[1, 200]], 'the attempt is on record');
    const listed = (await call(admin, 'GET', path())).json().data.find((w: { id: string }) => w.id === hook.id);
    assert.deepEqual([listed.recent_deliveries, listed.success_rate], [{ finished: 1, delivered: 1 }, 1]);
    const v1 = (await t.call('GET', `/v1/webhooks/${hook.id}`)).json().data.deliveries[0];
    assert.equal(v1.event_type, 'test', '/v1 sees the same delivery');
    assert.equal('next_attempt_at' in v1, false, "/v1's answer keeps its fields");
  });

  it('retries a failed test delivery on request, keeping its attempts', async () => {
    const dev = await member('developer');
    const hook = await created(dev);
    answer = 500;
    const delivery = (await call(dev, 'POST', path(`/${hook.id}/test`))).json().data as Delivery;
    const failed = await waitFor(async () => {
      const d = await deliveryOf(dev, hook.id, delivery.id);
      return d?.last_status === 500 ? d : undefined;
    }, 'the first attempt answered 500');
    assert.deepEqual([failed.state, failed.attempts], ['pending', 1]);
    assert.ok(Date.parse(failed.next_attempt_at!) > Date.now() + 30_000, 'the next attempt is after the backoff');

    answer = 200;
    const retried = await call(dev, 'POST', path(`/${hook.id}/deliveries/${delivery.id}/retry`));
    assert.deepEqual([retried.statusCode, retried.json().data.state], [200, 'pending']);
    const done = await waitFor(async () => {
      const d = await deliveryOf(dev, hook.id, delivery.id);
      return d?.state === 'delivered' ? d : undefined;
    }, 'the retried delivery delivered');
    assert.deepEqual([done.attempts, done.last_status], [2, 200]);
    assert.equal(postsOf(delivery.id).length, 2, 'posted twice, with the same webhook-id');
  });

  it(`rates each endpoint by its latest ${SUCCESS_RATE_WINDOW} finished deliveries, pending ones left out`, async () => {
    const admin = await member('admin');
    const hook = await created(admin);
    const quiet = await created(admin);
    // Oldest first: 20 failed that fall out of the window, then 75 delivered and 25 failed, then 3 pending.
    const states = [...Array(20).fill('failed'), ...Array(75).fill('delivered'), ...Array(25).fill('failed'), ...Array(3).fill('pending')];
    const now = new Date().toISOString();
    for (const state of states) {
      await t.db
        .insertInto('webhook_deliveries')
        .values({
          id: newId('whd'), webhook_id: hook.id, workspace_id: t.workspaceId, event_id: newId('evt'), event_type: 'delivered', payload: '{}', state,
          attempts: 1, available_at: '2999-01-01T00:00:00.000Z', lease_owner: null, lease_expires_at: null, last_status: null, last_error: null,
          created_at: now, updated_at: now,
        })
        .execute();
    }
    const rows = (await call(admin, 'GET', path())).json().data as Array<{ id: string; recent_deliveries: unknown; success_rate: unknown }>;
    const rate = (id: string) => rows.find((w) => w.id === id)!;
    assert.deepEqual([rate(hook.id).recent_deliveries, rate(hook.id).success_rate], [{ finished: 100, delivered: 75 }, 0.75]);
    assert.deepEqual([rate(quiet.id).recent_deliveries, rate(quiet.id).success_rate], [{ finished: 0, delivered: 0 }, null]);
    const pending = (await detail(admin, hook.id)).deliveries.filter((d) => d.state === 'pending');
    assert.deepEqual(pending.map((d) => d.next_attempt_at), Array(3).fill('2999-01-01T00:00:00.000Z'), 'a pending delivery shows its next attempt');
  });

  it('rotates the secret (the new one shown once, the old one signing nothing more), then deletes the endpoint', async () => {
    const admin = await member('admin');
    const hook = await created(admin);
    const rotated = await call(admin, 'POST', path(`/${hook.id}/rotate-secret`));
    assert.equal(rotated.statusCode, 200);
    const { secret } = rotated.json().data as { secret: string };
    assert.match(secret, SECRET);
    assert.notEqual(secret, hook.secret);

    const delivery = (await call(admin, 'POST', path(`/${hook.id}/test`))).json().data as Delivery;
    const received = await waitFor(firstPostOf(delivery.id), 'the test event signed with the new secret');
    assert.equal(verified(secret, received).event, 'test');
    assert.throws(() => verified(hook.secret, received), /signature/i, 'the old secret no longer verifies');

    const deleted = await call(admin, 'DELETE', path(`/${hook.id}`));
    assert.deepEqual([deleted.statusCode, deleted.json().data], [200, { id: hook.id, deleted: true }]);
    const gone = await call(admin, 'GET', path(`/${hook.id}`));
    assert.deepEqual([gone.statusCode, gone.json()], [404, { success: false, error: 'Webhook not found' }]);
  });

  it("lets a viewer read endpoints and deliveries, and refuses a viewer's every change with 403", async () => {
    const admin = await member('admin');
    const hook = await created(admin);
    const delivery = (await call(admin, 'POST', path(`/${hook.id}/test`))).json().data as Delivery;
    await waitFor(async () => (await deliveryOf(admin, hook.id, delivery.id))?.state === 'delivered', 'the test delivered');
    const viewer = await member('viewer');
    assert.equal((await call(viewer, 'GET', path())).statusCode, 200);
    assert.equal((await detail(viewer, hook.id)).deliveries.length, 1);

    const posted = receiver.received.length;
    for (const [method, url, body] of [
      ['POST', path(), { url: receiver.url }],
      ['POST', path(`/${hook.id}/test`), undefined],
      ['POST', path(`/${hook.id}/rotate-secret`), undefined],
      ['POST', path(`/${hook.id}/deliveries/${delivery.id}/retry`), undefined],
      ['DELETE', path(`/${hook.id}`), undefined],
    ] as const) {
      const res = await call(viewer, method, url, body);
      assert.deepEqual([res.statusCode, res.json()], [403, VIEWER_REFUSED], `${method} ${url}`);
    }
    const after = await t.services.webhooks.get(t.workspaceId, hook.id);
    assert.equal(after.masked_secret, `whsec_${hook.secret.slice(6, 10)}********${hook.secret.slice(-4)}`, 'the secret is unchanged');
    assert.deepEqual([after.deliveries.length, after.deliveries[0]!.state], [1, 'delivered'], 'nothing queued or retried');
    assert.equal(receiver.received.length, posted, 'nothing posted');
  });

  it("answers 404 for another workspace's endpoints and deliveries, and for a workspace the user is not in", async () => {
    const admin = await member('admin');
    const mine = await created(admin);
    const other = await t.newWorkspace('Not mine');
    const otherAdmin = await member('admin', other.workspaceId);
    const theirs = (await dashboardRequest(t, 'POST', path('', other.workspaceId), { ...otherAdmin, body: { url: receiver.url } })).json().data;
    const theirDelivery = (await dashboardRequest(t, 'POST', path(`/${theirs.id}/test`, other.workspaceId), otherAdmin)).json().data as Delivery;

    for (const [method, suffix] of [
      ['GET', `/${theirs.id}`],
      ['DELETE', `/${theirs.id}`],
      ['POST', `/${theirs.id}/rotate-secret`],
      ['POST', `/${theirs.id}/test`],
      ['POST', `/${theirs.id}/deliveries/${theirDelivery.id}/retry`],
    ] as const) {
      const res = await call(admin, method, path(suffix));
      assert.deepEqual([res.statusCode, res.json()], [404, { success: false, error: 'Webhook not found' }], `${method} ${suffix}`);
      const outside = await call(admin, method, path(suffix, other.workspaceId));
      assert.deepEqual([outside.statusCode, outside.json()], [404, { success: false, error: 'Workspace not found' }], `${method} in their workspace`);
    }
    const crossDelivery = await call(admin, 'POST', path(`/${mine.id}/deliveries/${theirDelivery.id}/retry`));
    assert.deepEqual([crossDelivery.statusCode, crossDelivery.json().error], [404, 'Webhook delivery not found']);
    assert.equal((await t.services.webhooks.list(other.workspaceId)).length, 1, 'theirs is still there');
  });

  it('refuses a bad URL or event list, saying why, and never lets test be subscribed to', async () => {
    const admin = await member('admin');
    for (const [body, error] of [
      [{ url: 'ftp://example.com/hooks' }, 'url must be an http or https URL (got ftp)'],
      [{ url: receiver.url, events: [] }, 'events must not be empty: leave it out to receive every event'],
      [{ url: receiver.url, events: ['test'] }, 'events must contain only delivered, bounced, complained, suppressed, failed, opened, clicked, upstream.down, upstream.up (got "test")'],
    ] as const) {
      const res = await call(admin, 'POST', path(), body);
      assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error }], JSON.stringify(body));
    }
    assert.equal((await t.call('POST', '/v1/webhooks', { body: { url: receiver.url, events: ['test'] } })).statusCode, 400, 'nor on /v1');
    const noCsrf = await dashboardRequest(t, 'POST', path(), { cookie: admin.cookie, body: { url: receiver.url } });
    assert.equal(noCsrf.statusCode, 403);
  });
});
