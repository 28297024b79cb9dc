import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { nowIso } from '../src/lib/ids.js';
import type { NewWebhookDelivery } from '../src/webhooks/webhook-deliveries-repository.js';
import { createWebhookDispatcher, WEBHOOK_CONCURRENCY_PER_ENDPOINT, WEBHOOK_HELD_PER_ENDPOINT } from '../src/webhooks/webhook-dispatcher.js';
import { WEBHOOK_RESOLVE_TIMEOUT_MS } from '../src/webhooks/url-guard.js';
import { endpointPreparer } from '../src/webhooks/webhook-endpoint.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';

// The dispatcher writes a batch of outcomes with one statement per kind of settlement
// (webhookDeliveries.settleMany); here on the store this run exercises, with deliveries the event
// pipeline wrote for a real send.
describe('settling webhook deliveries together', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_SEND_PER_MIN: '1000', RATE_LIMIT_OTHER_PER_MIN: '1000' });
  });
  after(() => t.close());

  /** Four pending deliveries of `suppressed` events to one endpoint (no dispatcher runs here). */
  async function fourDeliveries(): Promise<string[]> {
    const created = await t.call('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['suppressed'] } });
    assert.equal(created.statusCode, 201, created.body);
    const webhookId = created.json().data.id as string;
    const emails = ['a', 'b', 'c', 'd'].map((local) => `${local}-settle@example.com`);
    for (const email of emails) {
      await t.store.suppressions.add({ workspace_id: t.workspaceId, email, reason: 'manual', source_message_id: null, created_at: nowIso() });
    }
    assert.equal((await t.call('POST', '/v1/send', { body: sendBody({ to: emails }) })).statusCode, 200);
    const deliveries = await waitFor(async () => {
      const due = await t.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', webhookId).where('state', '=', 'pending').execute();
      return due.length === 4 ? due : undefined;
    }, 'four pending deliveries');
    return deliveries.map((d) => d.id);
  }

  it('settles the deliveries this owner leases, in one go, and answers which: not one another owner took over', async () => {
    const ids = await fourDeliveries();
    const now = nowIso();
    const later = new Date(Date.now() + 60_000).toISOString();
    const claimed = await t.store.webhookDeliveries.claimDue({ free: 4, perEndpoint: 4, room: new Map(), candidates: 8 }, 'owner-a', now, later);
    assert.deepEqual(claimed.map((d) => d.id).sort(), [...ids].sort());
    // The last one's lease ran out and another dispatcher took it.
    const lost = ids[3]!;
    await t.db.updateTable('webhook_deliveries').set({ lease_owner: 'owner-b' }).where('id', '=', lost).execute();

    const settled = await t.store.webhookDeliveries.settleMany(ids.slice(0, 2).concat(lost), 'owner-a', { state: 'delivered', lastStatus: 200, lastError: null }, now);
    assert.deepEqual(settled.sort(), ids.slice(0, 2).sort());
    const retryAt = new Date(Date.now() + 30_000).toISOString();
    assert.deepEqual(await t.store.webhookDeliveries.settleMany([ids[2]!], 'owner-a', { state: 'pending', availableAt: retryAt, lastStatus: 500, lastError: 'HTTP 500' }, now), [ids[2]]);

    const rows = await t.db.selectFrom('webhook_deliveries').select(['id', 'state', 'last_status', 'last_error', 'lease_owner', 'available_at']).where('id', 'in', ids).execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const id of ids.slice(0, 2)) assert.deepEqual({ ...byId.get(id), id: undefined, available_at: undefined }, { id: undefined, available_at: undefined, state: 'delivered', last_status: 200, last_error: null, lease_owner: null });
    assert.deepEqual([byId.get(ids[2]!)!.state, byId.get(ids[2]!)!.available_at, byId.get(ids[2]!)!.lease_owner], ['pending', retryAt, null]);
    // Untouched: still the other owner's, still pending.
    assert.deepEqual([byId.get(lost)!.state, byId.get(lost)!.lease_owner, byId.get(lost)!.last_status], ['pending', 'owner-b', null]);
  });

  it('claims the oldest due deliveries in one statement, each endpoint up to its room, none twice', async () => {
    // Two endpoints' deliveries written directly, with times of their own: A's all older than B's.
    const endpoint = async () => (await t.call('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/claim', events: ['suppressed'] } })).json().data.id as string;
    const [a, b] = [await endpoint(), await endpoint()];
    const base = Date.now() - 60_000;
    const delivery = (webhookId: string, i: number, overrides: Partial<NewWebhookDelivery> = {}): NewWebhookDelivery => {
      const at = new Date(base + i * 1000).toISOString();
      return {
        id: `whd_claim_${webhookId}_${i}`, webhook_id: webhookId, workspace_id: t.workspaceId, event_id: `evt_claim_${i}`, event_type: 'suppressed', payload: '{}',
        state: 'pending', available_at: at, lease_owner: null, lease_expires_at: null, last_status: null, last_error: null, created_at: at, updated_at: at, ...overrides,
      };
    };
    const future = new Date(Date.now() + 60_000).toISOString();
    await t.store.webhookDeliveries.insertMany([
      ...[0, 1, 2, 3].map((i) => delivery(a, i)),
      ...[10, 11, 12, 13].map((i) => delivery(b, i)),
      delivery(a, 20, { available_at: future }), // not due yet
      delivery(b, 21, { lease_owner: 'owner-x', lease_expires_at: future }), // leased by another
      delivery(b, 22, { state: 'delivered' }),
    ]);
    const ours = (claimed: { id: string; webhook_id: string }[]) => claimed.filter((d) => d.webhook_id === a || d.webhook_id === b).map((d) => d.id);
    const now = nowIso();
    const { claimDue } = t.store.webhookDeliveries;
    // A has room for one more, B is full: only A's oldest.
    assert.deepEqual(ours(await claimDue({ free: 10, perEndpoint: 3, room: new Map([[a, 1], [b, 0]]), candidates: 20 }, 'owner-1', now, future)), [delivery(a, 0).id]);
    // Two of each at most: A's next two, then B's two oldest, though there was room for five.
    const second = await claimDue({ free: 5, perEndpoint: 2, room: new Map(), candidates: 20 }, 'owner-2', now, future);
    assert.deepEqual(ours(second), [delivery(a, 1).id, delivery(a, 2).id, delivery(b, 10).id, delivery(b, 11).id]);
    assert.ok(second.every((d) => d.lease_owner === 'owner-2' && d.lease_expires_at === future && d.attempts === 1));
    // Two in all, oldest first; then the last; nothing leased, not due or settled.
    assert.deepEqual(ours(await claimDue({ free: 2, perEndpoint: 10, room: new Map(), candidates: 20 }, 'owner-3', now, future)), [delivery(a, 3).id, delivery(b, 12).id]);
    assert.deepEqual(ours(await claimDue({ free: 10, perEndpoint: 10, room: new Map(), candidates: 20 }, 'owner-4', now, future)), [delivery(b, 13).id]);
    assert.deepEqual(ours(await claimDue({ free: 10, perEndpoint: 10, room: new Map(), candidates: 20 }, 'owner-5', now, future)), []);
  });

  it('records attempts and settles their deliveries together, all or nothing, alike or not', async () => {
    const ids = await fourDeliveries();
    const now = nowIso();
    const later = new Date(Date.now() + 60_000).toISOString();
    // Leased as a claim leases them (claimDue would take older deliveries that the tests above left due).
    await t.db.updateTable('webhook_deliveries').set({ lease_owner: 'owner-r', lease_expires_at: later, attempts: 1 }).where('id', 'in', ids).execute();
    const lost = ids[3]!;
    await t.db.updateTable('webhook_deliveries').set({ lease_owner: 'owner-other' }).where('id', '=', lost).execute();
    const attempt = (id: string, status: number) => ({ id: `wha_rs_${id}`, delivery_id: id, attempt: 1, status_code: status, response_body: 'ok', error: null, duration_ms: 5, created_at: now });
    const delivered = { state: 'delivered' as const, lastStatus: 200, lastError: null };
    const { recordAndSettle } = t.store.webhookDeliveries;

    // An attempt that cannot be written (its id taken) leaves every delivery as it was: still leased, no attempt.
    await t.store.webhookDeliveries.recordAttempts([attempt(ids[1]!, 200)]);
    await assert.rejects(recordAndSettle([attempt(ids[0]!, 200), attempt(ids[1]!, 200)], [{ ids: [ids[0]!, ids[1]!], change: delivered }], 'owner-r', now));
    const untouched = await t.db.selectFrom('webhook_deliveries').select(['state', 'lease_owner']).where('id', '=', ids[0]!).executeTakeFirstOrThrow();
    assert.deepEqual(untouched, { state: 'pending', lease_owner: 'owner-r' });
    assert.deepEqual(await t.store.webhookDeliveries.listAttempts(ids[0]!), []);

    // Alike (on PostgreSQL one statement): settled only where the lease is still this owner's; every attempt recorded.
    assert.deepEqual((await recordAndSettle([attempt(ids[0]!, 200), attempt(lost, 200)], [{ ids: [ids[0]!, lost], change: delivered }], 'owner-r', now)).sort(), [ids[0]]);
    assert.deepEqual((await t.store.webhookDeliveries.listAttempts(lost)).map((a) => a.status_code), [200]);
    // Not alike (two statements), inside a caller's transaction: one due again later, none delivered.
    const retryAt = new Date(Date.now() + 30_000).toISOString();
    const retry = { state: 'pending' as const, availableAt: retryAt, lastStatus: 503, lastError: 'HTTP 503' };
    const settled = await t.store.transaction((repos) =>
      repos.webhookDeliveries.recordAndSettle([{ ...attempt(ids[2]!, 503), id: 'wha_rs_retry' }], [{ ids: [ids[2]!], change: retry }, { ids: [], change: delivered }], 'owner-r', now),
    );
    assert.deepEqual(settled, [ids[2]]);
    const rows = await t.db.selectFrom('webhook_deliveries').select(['id', 'state', 'last_status', 'lease_owner', 'available_at']).where('id', 'in', ids).orderBy('id').execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    assert.deepEqual(byId.get(ids[0]!), { id: ids[0], state: 'delivered', last_status: 200, lease_owner: null, available_at: byId.get(ids[0]!)!.available_at });
    assert.deepEqual(byId.get(ids[2]!), { id: ids[2], state: 'pending', last_status: 503, lease_owner: null, available_at: retryAt });
    assert.deepEqual([byId.get(lost)!.state, byId.get(lost)!.lease_owner], ['pending', 'owner-other']);
  });

  it('records a batch of attempts in one go', async () => {
    const ids = await fourDeliveries();
    const at = nowIso();
    await t.store.webhookDeliveries.recordAttempts(
      ids.map((id, i) => ({ id: `wha_settle_${i}_${id}`, delivery_id: id, attempt: 1, status_code: 200 + i, response_body: 'ok', error: null, duration_ms: i, created_at: at })),
    );
    for (const [i, id] of ids.entries()) {
      const attempts = await t.store.webhookDeliveries.listAttempts(id);
      assert.deepEqual(attempts.map((a) => [a.status_code, a.duration_ms]), [[200 + i, i]]);
    }
  });

  /** A webhook for `suppressed` events to the receiver, and `count` pending deliveries to it, made by real sends. */
  async function heldDeliveries(url: string, count: number) {
    const created = await t.call('POST', '/v1/webhooks', { body: { url, events: ['suppressed'] } });
    const webhookId = created.json().data.id as string;
    const emails = Array.from({ length: count }, (_, i) => `held${i}-${webhookId}@example.com`);
    for (const email of emails) await t.store.suppressions.add({ workspace_id: t.workspaceId, email, reason: 'manual', source_message_id: null, created_at: nowIso() });
    for (let i = 0; i < emails.length; i += 20) await t.call('POST', '/v1/send', { body: sendBody({ to: emails.slice(i, i + 20) }) });
    const rows = () => t.db.selectFrom('webhook_deliveries').select(['id', 'attempts', 'lease_owner', 'lease_expires_at', 'state']).where('webhook_id', '=', webhookId).execute();
    await waitFor(async () => (await rows()).length === count, `${count} deliveries`);
    return rows;
  }

  const quiet = { info() {}, warn() {}, error() {} };

  it('holds four times the posts in flight per endpoint, and at a stop gives back those it never posted without counting an attempt', { timeout: 30_000 }, async () => {
    // A receiver that answers nothing until the test is over: the posts in flight stay in flight.
    let release!: () => void;
    const hanging = new Promise<number>((resolve) => (release = () => resolve(200)));
    const receiver = await startWebhookReceiver(() => hanging);
    // Stopped in `finally` too: a dispatcher left running after a failed wait would keep the test process alive forever.
    let dispatcher: ReturnType<typeof createWebhookDispatcher> | undefined;
    try {
      const count = WEBHOOK_HELD_PER_ENDPOINT + 16;
      const rows = await heldDeliveries(receiver.url, count);
      dispatcher = createWebhookDispatcher({ store: t.store, retryBaseMs: 60_000, pollMs: 20, logger: quiet, prepare: endpointPreparer(t.config), stopGraceMs: 200 });
      dispatcher.start();
      // Waits shorter than the test's timeout, so that a failed one still reaches `finally`.
      await waitFor(() => receiver.received.length === WEBHOOK_CONCURRENCY_PER_ENDPOINT, `${WEBHOOK_CONCURRENCY_PER_ENDPOINT} posts in flight`, { timeoutMs: 10_000 });
      const leased = await waitFor(async () => {
        const held = (await rows()).filter((row) => row.lease_owner !== null);
        return held.length === WEBHOOK_HELD_PER_ENDPOINT ? held : undefined;
      }, `${WEBHOOK_HELD_PER_ENDPOINT} deliveries held`, { timeoutMs: 10_000 });
      // Claimed ahead, each counted as an attempt; no more posts than the endpoint's slots.
      assert.ok(leased.every((row) => row.attempts === 1));
      assert.equal(receiver.received.length, WEBHOOK_CONCURRENCY_PER_ENDPOINT);

      await dispatcher.stop();
      const after = await rows();
      assert.ok(after.every((row) => row.lease_owner === null && row.state === 'pending'), 'everything given back, due');
      const posted = new Set(receiver.received.map((hook) => hook.headers['webhook-id']));
      // Those posted (and given back unanswered) keep their attempt; those that waited for a slot have none.
      for (const row of after) assert.equal(row.attempts, posted.has(row.id) ? 1 : 0, row.id);
      assert.equal(after.filter((row) => row.attempts === 0).length, count - WEBHOOK_CONCURRENCY_PER_ENDPOINT);
    } finally {
      release();
      await dispatcher?.stop();
      await receiver.close();
    }
  });

  it('gives back unposted a held delivery whose lease would run out before its post could end', { timeout: 30_000 }, async () => {
    // Posts time out after 2 s, and a claim's lease is 3 s longer than an attempt may take: the first two rounds of
    // an endpoint's slots are posted with time to spare, the third would be posted with too little and is given back.
    const timeoutMs = 2_000;
    const attemptMs = WEBHOOK_RESOLVE_TIMEOUT_MS + timeoutMs;
    let release!: () => void;
    const hanging = new Promise<number>((resolve) => (release = () => resolve(200)));
    /** Per post, how long its delivery's lease (as written) had left when it arrived. */
    const leaseLeft: number[] = [];
    let rows: Awaited<ReturnType<typeof heldDeliveries>> | undefined;
    const receiver = await startWebhookReceiver(async (hook) => {
      const row = (await rows!()).find((r) => r.id === hook.headers['webhook-id']);
      leaseLeft.push(Date.parse(row!.lease_expires_at!) - hook.at);
      return hanging;
    });
    let dispatcher: ReturnType<typeof createWebhookDispatcher> | undefined;
    try {
      rows = await heldDeliveries(receiver.url, WEBHOOK_HELD_PER_ENDPOINT);
      dispatcher = createWebhookDispatcher({
        store: t.store, retryBaseMs: 60_000, pollMs: 20, logger: quiet, prepare: endpointPreparer(t.config), stopGraceMs: 200, timeoutMs, leaseMs: attemptMs + 3_000,
      });
      dispatcher.start();
      // Two rounds from the first claim, then one from the claim of those given back.
      const posts = 3 * WEBHOOK_CONCURRENCY_PER_ENDPOINT;
      await waitFor(() => leaseLeft.length >= posts, `${posts} posts`, { timeoutMs: 20_000 });
      // Without the give-back the third round would arrive with about 1 s less than an attempt may take.
      assert.ok(leaseLeft.every((left) => left > attemptMs - 500), `lease left at each post: ${Math.min(...leaseLeft)} ms at least`);

      await dispatcher.stop();
      // Every attempt counted is a post made: those given back had theirs taken back.
      const timesPosted = new Map<unknown, number>();
      for (const hook of receiver.received) timesPosted.set(hook.headers['webhook-id'], (timesPosted.get(hook.headers['webhook-id']) ?? 0) + 1);
      for (const row of await rows()) assert.equal(row.attempts, timesPosted.get(row.id) ?? 0, row.id);
      assert.equal(new Set(timesPosted.keys()).size, receiver.received.length, 'no delivery posted twice');
    } finally {
      release();
      await dispatcher?.stop();
      await receiver.close();
    }
  });
});
