/**
 * GET /v1/messages/{id} and /content: what became of each recipient of a real
 * send, delivered by the worker in this process through the sandbox provider
 * and its simulator mailboxes, with its webhook deliveries posted to a real
 * receiver; and the MIME as it was handed over.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SIMULATOR_DOMAIN } from '../src/delivery/sandbox-provider.js';
import { headerOf } from './helpers/smtp-sink.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const sim = (local: string) => `${local}@${SIMULATOR_DOMAIN}`;

describe('message detail', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startWebhookReceiver();
    t = await createTestApp(
      {
        RATE_LIMIT_OTHER_PER_MIN: '100000', DELIVERY_RETRY_BASE_MS: '20', DELIVERY_MAX_ATTEMPTS: '2', WORKER_POLL_MS: '20',
        WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '20',
      },
      { worker: true, webhooks: true },
    );
    assert.equal((await t.call('POST', '/v1/webhooks', { body: { url: receiver.url } })).statusCode, 201);
    await t.call('POST', '/v1/suppressions', { body: { email: 'listed@example.com' } });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const detail = async (id: string, key?: string) => t.call('GET', `/v1/messages/${id}`, { key });
  const jobDone = (id: string) => waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', `the job of ${id} to finish`);

  it('shows the message, each recipient with its events and attempts, and the webhook deliveries they caused', async () => {
    const to = [sim('delivered'), sim('bounce'), sim('complaint'), 'listed@example.com'];
    const sent = await t.call('POST', '/v1/send', {
      body: sendBody({ to, from_email: 'Acme Billing <billing@sandbox.mailroom.test>', reply_to: 'Help Desk <help@acme.example>', html: '<p>Hi</p>', text: 'Hi' }),
    });
    const id = sent.json().data.message_id as string;
    await jobDone(id);
    // Four events (delivered, bounced, delivered + complained, suppressed) and five deliveries, each to the one endpoint.
    await waitFor(async () => {
      const body = (await detail(id)).json().data;
      return body.webhook_deliveries.length === 5 && body.webhook_deliveries.every((d: { status: string }) => d.status === 'delivered');
    }, 'every webhook delivery of the message posted');

    const res = await detail(id);
    assert.equal(res.statusCode, 200);
    const message = res.json().data;
    const kept = await t.store.sandboxMessages.find(id);
    assert.deepEqual(
      { ...message, recipients: undefined, webhook_deliveries: undefined },
      {
        id, from_email: 'billing@sandbox.mailroom.test', from_name: 'Acme Billing', reply_to: 'Help Desk <help@acme.example>', cc: [], bcc: [], subject: 'Hello',
        created_at: message.created_at, scheduled_at: null, template_id: null, template_version: null, size_bytes: Buffer.byteLength(kept!.raw), has_html: true, has_text: true, content_expired_at: null, tags: {}, attachments: [], recipients: undefined, webhook_deliveries: undefined,
      },
    );
    assert.match(message.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const byTo = Object.fromEntries(message.recipients.map((r: { to: string }) => [r.to, r]));
    assert.deepEqual(message.recipients.map((r: { to: string; status: string }) => [r.to, r.status]), [
      [sim('delivered'), 'delivered'], [sim('bounce'), 'bounced'], [sim('complaint'), 'delivered'], ['listed@example.com', 'suppressed'],
    ]);
    const bounce = byTo[sim('bounce')];
    assert.match(bounce.error, /^550 5\.1\.1 Mailbox does not exist/);
    assert.deepEqual(bounce.events.map((e: Record<string, unknown>) => [e.type, e.status, e.detail]), [['bounced', 'bounced', bounce.error]]);
    assert.equal(bounce.attempts.length, 1);
    const [attempt] = bounce.attempts;
    assert.deepEqual({ ...attempt, at: undefined, duration_ms: undefined }, { attempt: 1, at: undefined, outcome: 'permanent', reply: bounce.error, duration_ms: undefined, provider: 'sandbox', provider_message_id: null, upstream: 'server:sandbox' });
    assert.ok(Number.isInteger(attempt.duration_ms) && attempt.duration_ms >= 0, `a duration in ms: ${attempt.duration_ms}`);
    assert.deepEqual(byTo[sim('complaint')].events.map((e: Record<string, unknown>) => [e.type, e.detail]), [['delivered', null], ['complained', 'abuse']]);
    const listed = byTo['listed@example.com'];
    assert.deepEqual([listed.error, listed.attempts, listed.events.map((e: Record<string, unknown>) => [e.type, e.detail])], [
      'Recipient is on the suppression list (manual)', [], [['suppressed', 'manual']],
    ]);
    for (const recipient of message.recipients) {
      for (const event of recipient.events) assert.ok(event.at >= message.created_at, 'events are timed');
    }

    const deliveries = message.webhook_deliveries as Array<Record<string, unknown>>;
    assert.deepEqual(deliveries.map((d) => d.event).sort(), ['bounced', 'complained', 'delivered', 'delivered', 'suppressed']);
    for (const delivery of deliveries) {
      assert.deepEqual(Object.keys(delivery).sort(), ['attempts', 'event', 'id', 'last_response_status', 'next_attempt_at', 'status', 'webhook_id']);
      assert.deepEqual([delivery.status, delivery.attempts, delivery.last_response_status, delivery.next_attempt_at], ['delivered', 1, 200, null]);
      assert.ok(receiver.received.some((hook) => hook.headers['webhook-id'] === delivery.id), `the receiver got ${delivery.id}`);
    }
  });

  it('answers the content: html, text, and the MIME exactly as handed over, DKIM-signed', async () => {
    const id = (await t.call('POST', '/v1/send', { body: sendBody({ to: [sim('delivered')], html: '<p>Hello <b>there</b></p>', text: 'Hello there' }) })).json().data.message_id;
    await jobDone(id);
    const res = await t.call('GET', `/v1/messages/${id}/content`);
    assert.equal(res.statusCode, 200);
    const content = res.json().data;
    assert.deepEqual([content.html, content.text, content.raw_unavailable_reason], ['<p>Hello <b>there</b></p>', 'Hello there', null]);
    assert.equal(content.raw, (await t.store.sandboxMessages.find(id))!.raw, 'the bytes the provider got');
    assert.match(headerOf(content.raw, 'DKIM-Signature')!, /d=sandbox\.mailroom\.test/);
    assert.equal(headerOf(content.raw, 'Message-ID'), `<${id}@sandbox.mailroom.test>`);
  });

  it('keeps the latest attempt and lists every attempt of a retried recipient', async () => {
    const id = (await t.call('POST', '/v1/send', { body: sendBody({ to: [sim('tempfail')] }) })).json().data.message_id;
    await jobDone(id);
    const [recipient] = (await detail(id)).json().data.recipients;
    assert.equal(recipient.status, 'failed');
    assert.deepEqual(recipient.attempts.map((a: { attempt: number; outcome: string }) => [a.attempt, a.outcome]), [[1, 'temporary'], [2, 'temporary']]);
    assert.match(recipient.attempts[1].reply, /^451 4\.3\.0 /);
    assert.deepEqual(recipient.events.map((e: { type: string }) => e.type), ['failed']);
    assert.ok((await t.call('GET', `/v1/messages/${id}/content`)).json().data.raw.includes('DKIM-Signature'));
  });

  it('says why there is no MIME when nothing was ever handed over', async () => {
    const id = (await t.call('POST', '/v1/send', { body: sendBody({ to: ['listed@example.com'] }) })).json().data.message_id;
    const content = (await t.call('GET', `/v1/messages/${id}/content`)).json().data;
    assert.deepEqual([content.raw, content.raw_unavailable_reason], [
      null, 'The message was never built: no recipient was handed to a provider (each was suppressed or failed before delivery)',
    ]);
    assert.equal((await detail(id)).json().data.size_bytes, null);
  });

  it("answers 404 Message not found for another workspace's message and for an unknown id", async () => {
    const id = (await t.call('POST', '/v1/send', { body: sendBody() })).json().data.message_id;
    const other = await t.newWorkspace();
    for (const path of [`/v1/messages/${id}`, `/v1/messages/${id}/content`]) {
      assert.deepEqual((await t.call('GET', path, { key: other.apiKey })).json(), { success: false, error: 'Message not found' });
      const unknown = await t.call('GET', path.replace(id, 'msg_01jzzzzzzzzzzzzzzzzzzzzzzz'));
      assert.deepEqual([unknown.statusCode, unknown.json()], [404, { success: false, error: 'Message not found' }]);
    }
  });
});

describe('message content before the first hand-over', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('says the message is waiting to be handed over', async () => {
    const id = (await t.call('POST', '/v1/send', { body: sendBody() })).json().data.message_id;
    const content = (await t.call('GET', `/v1/messages/${id}/content`)).json().data;
    assert.deepEqual(content, {
      html: null, text: 'Hello there', raw: null, raw_unavailable_reason: 'The message has not been handed to the provider yet; it is kept once it is', content_expired_at: null,
    });
    const message = (await t.call('GET', `/v1/messages/${id}`)).json().data;
    assert.deepEqual(message.recipients, [{ to: 'user@example.com', status: 'sent', error: null, events: [], attempts: [], note: null }]);
    assert.deepEqual([message.size_bytes, message.webhook_deliveries, message.reply_to], [null, [], null]);
  });
});
