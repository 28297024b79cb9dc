import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { SIMULATOR_DOMAIN } from '../src/delivery/sandbox-provider.js';
import { nowIso } from '../src/lib/ids.js';
import { createWebhookDispatcher, WEBHOOK_CONCURRENCY_PER_ENDPOINT } from '../src/webhooks/webhook-dispatcher.js';
import { endpointPreparer } from '../src/webhooks/webhook-endpoint.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type ReceivedHook, type WebhookReceiver } from './helpers/webhook-receiver.js';

const sim = (local: string) => `${local}@${SIMULATOR_DOMAIN}`;
const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WORKER_POLL_MS: '20', RATE_LIMIT_SEND_PER_MIN: '1000000', RATE_LIMIT_OTHER_PER_MIN: '1000000' };

describe('webhook delivery to a real HTTP receiver', () => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];
  before(async () => {
    t = await createTestApp({ ...ENV, WEBHOOK_RETRY_BASE_MS: '100' }, { worker: true, webhooks: true });
  });
  after(async () => {
    await t.close();
    for (const r of receivers) await r.close();
  });

  async function endpoint(respond?: Parameters<typeof startWebhookReceiver>[0], events?: string[]) {
    const receiver = await startWebhookReceiver(respond);
    receivers.push(receiver);
    const res = await t.call('POST', '/v1/webhooks', { body: { url: receiver.url, ...(events ? { events } : {}) } });
    assert.equal(res.statusCode, 201, res.body);
    const { id, secret } = res.json().data as { id: string; secret: string };
    return { receiver, id, secret };
  }
  const attemptsOf = async (deliveryId: string) => t.store.webhookDeliveries.listAttempts(deliveryId);

  it('posts every kind of event, signed per Standard Webhooks, with the payload of SPEC §6.2', async () => {
    const { receiver, secret } = await endpoint();
    await t.store.suppressions.add({ workspace_id: t.workspaceId, email: 'listed@example.com', reason: 'manual', source_message_id: null, created_at: nowIso() });
    const sent = (await t.call('POST', '/v1/send', { body: sendBody({ to: [sim('delivered'), sim('bounce'), sim('complaint')] }) })).json().data.message_id;
    const suppressed = (await t.call('POST', '/v1/send', { body: sendBody({ to: ['listed@example.com'] }) })).json().data.message_id;
    const failed = (await t.call('POST', '/v1/send', { body: sendBody({ to: ['ada@example.com'], from_email: 'x@unverified.example' }) })).json().data.message_id;

    const mine = () => receiver.received.filter((h) => [sent, suppressed, failed].includes(JSON.parse(h.body).message_id));
    await waitFor(() => mine().length === 6, 'six events at the receiver (delivered ×2, bounced, complained, suppressed, failed)');
    const verifier = new Webhook(secret);
    const byEvent = new Map<string, Record<string, string>[]>();
    for (const hook of mine()) {
      const verified = verifier.verify(hook.body, hook.headers as Record<string, string>) as Record<string, string>;
      assert.equal(hook.headers['x-service-signature'], hook.headers['webhook-signature']);
      assert.equal(hook.headers['content-type'], 'application/json');
      byEvent.set(verified.event!, [...(byEvent.get(verified.event!) ?? []), verified]);
    }
    assert.deepEqual([...byEvent.keys()].sort(), ['bounced', 'complained', 'delivered', 'failed', 'suppressed']);
    const bounce = byEvent.get('bounced')![0]!;
    assert.deepEqual([bounce.message_id, bounce.to, bounce.bounce_type, bounce.bounce_subtype], [sent, sim('bounce'), 'Permanent', 'NoEmail']);
    assert.match(bounce.diagnostic_code!, /^550 5\.1\.1 /);
    assert.equal(byEvent.get('complained')![0]!.feedback_type, 'abuse');
    assert.equal(byEvent.get('suppressed')![0]!.reason, 'manual');
    assert.match(byEvent.get('failed')![0]!.error!, /not a domain of this workspace/);
    const delivered = byEvent.get('delivered')!.find((d) => d.to === sim('delivered'))!;
    assert.deepEqual(Object.keys(delivered).sort(), ['event', 'from', 'id', 'message_id', 'subject', 'tags', 'timestamp', 'to', 'workspace_id']);
    assert.equal(delivered.workspace_id, t.workspaceId);
    // The body is the event's record, byte for byte.
    const [event] = (await t.store.messageEvents.listForMessage(sent)).filter((e) => e.recipient === sim('delivered'));
    assert.ok(mine().some((h) => h.body === event!.payload));
  });

  it('retries a receiver that answers 500 three times, then 200: four attempts, growing gaps, one webhook-id', async () => {
    const { receiver, id } = await endpoint((_hook, index) => (index < 3 ? 500 : 200), ['suppressed']);
    await t.store.suppressions.add({ workspace_id: t.workspaceId, email: 'retry@example.com', reason: 'manual', source_message_id: null, created_at: nowIso() });
    await t.call('POST', '/v1/send', { body: sendBody({ to: ['retry@example.com'] }) });
    await waitFor(() => receiver.received.length === 4, 'four attempts');
    const ids = new Set(receiver.received.map((h) => h.headers['webhook-id']));
    assert.equal(ids.size, 1, 'every attempt carries the same webhook-id');
    const gaps = receiver.received.slice(1).map((h, i) => h.at - receiver.received[i]!.at);
    assert.ok(gaps[0]! >= 100 && gaps[1]! > gaps[0]! && gaps[2]! > gaps[1]!, `gaps ${gaps.join(', ')} ms`);
    const deliveryId = [...ids][0] as string;
    await waitFor(async () => (await t.call('GET', `/v1/webhooks/${id}`)).json().data.deliveries?.[0]?.state === 'delivered', 'the delivery marked delivered');
    const attempts = await attemptsOf(deliveryId);
    assert.deepEqual(attempts.map((a) => [a.attempt, a.status_code]), [[1, 500], [2, 500], [3, 500], [4, 200]]);
    assert.equal(attempts[0]!.response_body, 'status 500');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.received.length, 4, 'nothing after the 200');
  });

  it('gives up after four attempts at a receiver that always answers 500, and re-sends one on request', async () => {
    const { receiver, id } = await endpoint(() => 500, ['suppressed']);
    await t.store.suppressions.add({ workspace_id: t.workspaceId, email: 'never@example.com', reason: 'manual', source_message_id: null, created_at: nowIso() });
    await t.call('POST', '/v1/send', { body: sendBody({ to: ['never@example.com'] }) });
    const failed = await waitFor(async () => {
      const delivery = (await t.call('GET', `/v1/webhooks/${id}`)).json().data.deliveries?.[0];
      return delivery?.state === 'failed' ? delivery : undefined;
    }, 'the delivery marked failed');
    assert.equal(receiver.received.length, 4);
    assert.equal(failed.last_status, 500);
    assert.equal((await attemptsOf(failed.id)).length, 4);

    const replay = await t.call('POST', `/v1/webhooks/${id}/deliveries/${failed.id}/retry`);
    assert.equal(replay.statusCode, 200, replay.body);
    await waitFor(() => receiver.received.length === 5, 'the replayed post');
    assert.equal(receiver.received[4]!.headers['webhook-id'], failed.id);
  });

  it('keeps posting to a healthy endpoint while another one hangs', async () => {
    let release!: () => void;
    const held = new Promise<number>((resolve) => (release = () => resolve(200)));
    const slow = await endpoint(() => held, ['suppressed']);
    const fast = await endpoint(undefined, ['suppressed']);
    const before = fast.receiver.received.length;
    for (let i = 0; i < 20; i++) {
      await t.store.suppressions.add({ workspace_id: t.workspaceId, email: `block${i}@example.com`, reason: 'manual', source_message_id: null, created_at: nowIso() });
      await t.call('POST', '/v1/send', { body: sendBody({ to: [`block${i}@example.com`] }) });
    }
    await waitFor(() => fast.receiver.received.length - before >= 20, 'all twenty at the healthy endpoint');
    assert.ok(slow.receiver.received.length <= WEBHOOK_CONCURRENCY_PER_ENDPOINT, `the hanging endpoint holds at most ${WEBHOOK_CONCURRENCY_PER_ENDPOINT} posts at once`);
    release();
    await waitFor(() => slow.receiver.received.length >= 20, 'the hanging endpoint catching up once it answers');
  });
});

describe('webhook safety at delivery time', () => {
  it('does not follow a redirect, and does not post to a name that now resolves to a private address', async () => {
    const t = await createTestApp({ ...ENV, WEBHOOK_RETRY_BASE_MS: '60000' });
    const redirecting = await startWebhookReceiver(() => 302);
    const target = await startWebhookReceiver();
    try {
      const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
      const now = nowIso();
      // Stored as the API would have stored them; `rebinding.example` passed the check at creation.
      for (const [id, url] of [['wh_redirect', redirecting.url], ['wh_rebinding', `http://rebinding.example:${target.port}/hooks`]]) {
        await t.store.webhooks.insert({ id: id!, workspace_id: t.workspaceId, url: url!, events: JSON.stringify(['suppressed']), secret, created_at: now, updated_at: now });
      }
      await t.store.suppressions.add({ workspace_id: t.workspaceId, email: 'safety@example.com', reason: 'manual', source_message_id: null, created_at: now });
      await t.call('POST', '/v1/send', { body: sendBody({ to: ['safety@example.com'] }) });

      // The switch is off now, and the name resolves to loopback: DNS rebinding.
      const config = { ...t.config, webhooks: { ...t.config.webhooks, allowPrivate: false } };
      const resolveHost = async () => ['127.0.0.1'];
      const prepare = endpointPreparer(config, resolveHost);
      const dispatcher = createWebhookDispatcher({
        store: t.store, retryBaseMs: 60_000, pollMs: 20, logger: { info() {}, warn() {}, error() {} },
        // The redirecting receiver is on loopback too: let it through, so the redirect itself is what is tested.
        prepare: (endpoint) => (endpoint.id === 'wh_redirect' ? endpointPreparer(t.config)(endpoint) : prepare(endpoint)),
      });
      dispatcher.start();
      try {
        const attempts = async (webhookId: string) => {
          const rows = await t.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', webhookId).execute();
          return rows.length ? t.store.webhookDeliveries.listAttempts(rows[0]!.id) : [];
        };
        const [redirect] = await waitFor(async () => { const a = await attempts('wh_redirect'); return a.length ? a : undefined; }, 'the attempt at the redirecting endpoint');
        assert.equal(redirect!.status_code, 302, 'a 3xx is an answer like any other non-2xx');
        assert.equal(redirecting.received.length, 1);
        const [refused] = await waitFor(async () => { const a = await attempts('wh_rebinding'); return a.length ? a : undefined; }, 'the attempt at the rebinding endpoint');
        assert.equal(refused!.status_code, null);
        assert.match(refused!.error!, /127\.0\.0\.1/);
        assert.equal(target.received.length, 0, 'nothing was posted to the private address');
      } finally {
        await dispatcher.stop();
      }
    } finally {
      await t.close();
      await redirecting.close();
      await target.close();
    }
  });
});

describe('webhook delivery while the receiver is down', () => {
  it('loses none of 500 events: all arrive once the receiver is up', async () => {
    // Retries 1, 2 and 4 s apart: the receiver comes back within the first of them.
    const t = await createTestApp({ ...ENV, WEBHOOK_RETRY_BASE_MS: '1000' }, { webhooks: true });
    const receiver = await startWebhookReceiver();
    try {
      const res = await t.call('POST', '/v1/webhooks', { body: { url: receiver.url, events: ['suppressed'] } });
      assert.equal(res.statusCode, 201, res.body);
      await receiver.close(); // down
      for (let i = 0; i < 500; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, async (_, j) => {
            await t.store.suppressions.add({ workspace_id: t.workspaceId, email: `down${i + j}@example.com`, reason: 'manual', source_message_id: null, created_at: nowIso() });
            await t.call('POST', '/v1/send', { body: sendBody({ to: [`down${i + j}@example.com`] }) });
          }),
        );
      }
      await waitFor(async () => ((await t.store.webhookDeliveries.countByState()).pending ?? 0) === 500, 'all 500 deliveries queued');
      await waitFor(async () => (await t.db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n !== 0, 'a failed attempt while down');
      await receiver.listen(); // up again
      await waitFor(() => new Set(receiver.received.map((h: ReceivedHook) => JSON.parse(h.body).to)).size === 500, 'all 500 at the receiver', { timeoutMs: 60_000 });
      await waitFor(async () => (await t.store.webhookDeliveries.countByState()).delivered === 500, 'all 500 marked delivered');
      assert.equal((await t.store.webhookDeliveries.countByState()).failed, undefined);
    } finally {
      await t.close();
      await receiver.close().catch(() => undefined);
    }
  });
});
