import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { unrecordedGiveUp } from '../src/delivery/delivery-attempt.js';
import { createDeliveryWorker } from '../src/delivery/delivery-worker.js';
import type { Provider } from '../src/delivery/provider.js';
import { createProvider } from '../src/delivery/providers.js';
import { nowIso } from '../src/lib/ids.js';
import { createWebhookDispatcher, UNRECORDED_GIVE_UP } from '../src/webhooks/webhook-dispatcher.js';
import { endpointPreparer } from '../src/webhooks/webhook-endpoint.js';
import { refuseInserts } from './helpers/refused-inserts.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';

// Every claim counts an attempt. When an attempt's outcome cannot be written (here: a trigger refuses the attempt
// rows, as a full disk would), the job or webhook delivery is claimed again once its lease runs out; the cap on
// attempts must still hold then, or the same mail (or event) goes out again at every lease's end.

/** A logger that counts the outcomes that could not be written. */
function countingUnrecorded() {
  const counter = { unrecorded: 0 };
  const logger = {
    info() {},
    warn() {},
    error(_details: unknown, message?: string) {
      if (message?.startsWith('could not record')) counter.unrecorded++;
    },
  };
  return { counter, logger };
}

describe('the attempt cap while outcomes cannot be written', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '1000', WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  after(() => t.close());

  it('hands a job over no more than DELIVERY_MAX_ATTEMPTS times, then records its recipient failed once it can', { timeout: 60_000 }, async () => {
    const sent = await t.call('POST', '/v1/send', { body: sendBody({ to: ['ada@example.com'] }) });
    const id = sent.json().data.message_id as string;
    const sandbox = createProvider(t.config, t.store);
    let handOvers = 0;
    const counting: Provider = { name: sandbox.name, send: (message) => (handOvers++, sandbox.send(message)), close: () => sandbox.close() };
    const { counter, logger } = countingUnrecorded();
    // Short leases, so that each attempt whose outcome was lost is claimed again within a moment.
    const config = { ...t.config, worker: { ...t.config.worker, leaseMs: 400, pollMs: 20 }, retry: { ...t.config.retry, maxAttempts: 3 } };
    const allow = await refuseInserts(t.db, 'delivery_attempts');
    const worker = createDeliveryWorker({ store: t.store, router: counting, config, logger, returnPaths: t.returnPaths });
    worker.start();
    try {
      // Five claims, each outcome lost: three hand-overs, then two claims past the cap that hand nothing over.
      await waitFor(() => counter.unrecorded >= 5, () => `five outcomes lost (${counter.unrecorded} so far)`);
      assert.equal(handOvers, 3);
      const job = await t.store.messages.findJobByMessage(id);
      assert.equal(job?.state, 'pending');
      assert.equal((await t.store.logs.findSendEntry(id, 'ada@example.com'))?.status, 'sent');

      await allow();
      await waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', 'the job to be done once its outcome can be written');
      const entry = await t.store.logs.findSendEntry(id, 'ada@example.com');
      assert.deepEqual([entry?.status, entry?.error], ['failed', unrecordedGiveUp(3)]);
      const attempts = await t.store.deliveryAttempts.listForMessage(id);
      assert.deepEqual(attempts.map((a) => [a.outcome, a.detail]), [['failed', unrecordedGiveUp(3)]]);
      assert.ok(Number(attempts[0]!.attempt) > 5, `recorded as attempt ${attempts[0]!.attempt}`);
      assert.equal(handOvers, 3);
    } finally {
      await worker.stop();
    }
  });

  it('posts a webhook delivery no more than four times, then records it failed once it can', { timeout: 60_000 }, async () => {
    const receiver = await startWebhookReceiver(() => 200);
    const created = await t.call('POST', '/v1/webhooks', { body: { url: receiver.url, events: ['suppressed'] } });
    assert.equal(created.statusCode, 201, created.body);
    const webhookId = created.json().data.id as string;
    await t.store.suppressions.add({ workspace_id: t.workspaceId, email: 'gone@example.com', reason: 'manual', source_message_id: null, created_at: nowIso() });
    assert.equal((await t.call('POST', '/v1/send', { body: sendBody({ to: ['gone@example.com'] }) })).json().data.status, 'suppressed');
    const row = () => t.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).executeTakeFirst();
    const deliveryId = (await waitFor(row, 'the suppressed event to be queued for the webhook')).id;
    // The dispatcher's lease (half a minute) runs out at once: as if that much time had passed.
    const leaseRunsOut = () => t.db.updateTable('webhook_deliveries').set({ lease_expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', deliveryId).execute();

    const { counter, logger } = countingUnrecorded();
    const allow = await refuseInserts(t.db, 'webhook_attempts');
    const dispatcher = createWebhookDispatcher({ store: t.store, retryBaseMs: 60_000, pollMs: 20, logger, prepare: endpointPreparer(t.config), stopGraceMs: 200 });
    dispatcher.start();
    try {
      for (let claim = 1; claim <= 6; claim++) {
        await waitFor(() => counter.unrecorded === claim, () => `the outcome of claim ${claim} to be lost (${counter.unrecorded} so far)`);
        // Not after the sixth: the delivery stays leased, and claimed six times, while the test reads it.
        if (claim < 6) await leaseRunsOut();
      }
      assert.equal(receiver.received.length, 4);
      assert.deepEqual(receiver.received.map((hook) => hook.headers['webhook-id']), Array(4).fill(deliveryId));
      assert.deepEqual([(await row())?.state, (await row())?.attempts], ['pending', 6]);

      await allow();
      await leaseRunsOut();
      await waitFor(async () => (await row())?.state === 'failed', 'the delivery to be settled once its outcome can be written');
      assert.equal((await row())?.last_error, UNRECORDED_GIVE_UP);
      const attempts = await t.store.webhookDeliveries.listAttempts(deliveryId);
      assert.deepEqual(attempts.map((a) => [a.attempt, a.status_code, a.error]), [[7, null, UNRECORDED_GIVE_UP]]);
      assert.equal(receiver.received.length, 4);

      // A retry asked for by hand claims past the cap too, but after an attempt on record: it is posted.
      assert.equal((await t.call('POST', `/v1/webhooks/${webhookId}/deliveries/${deliveryId}/retry`)).statusCode, 200);
      await waitFor(async () => (await row())?.state === 'delivered', 'the delivery retried by hand to be delivered');
      assert.equal(receiver.received.length, 5);
    } finally {
      await dispatcher.stop();
      await receiver.close();
    }
  });
});
