/**
 * `webhooks.verify` of the SDK (issue 17 point 2): it accepts what Mailroom
 * really posts (real deliveries to a real receiver), refuses every change,
 * and agrees with the `standardwebhooks` package on the same requests.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { Mailroom, verifyWebhook, type SendEmailRequest } from '../sdk/src/index.js';
import { SIMULATOR_DOMAIN } from '../src/delivery/sandbox-provider.js';
import { listenOnLoopback } from './helpers/listening-app.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type ReceivedHook, type WebhookReceiver } from './helpers/webhook-receiver.js';

const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WORKER_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '100', RATE_LIMIT_SEND_PER_MIN: '1000000', RATE_LIMIT_OTHER_PER_MIN: '1000000' };
// The Standard Webhooks specification's test vector (as in webhook-signature.test.ts).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  headers: { 'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp': '1614265330', 'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' },
  body: '{"test": 2432232314}',
  now: () => 1614265330 * 1000,
};
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('webhooks.verify on real deliveries', () => {
  let t: TestApp;
  let mailroom: Mailroom;
  let receiver: WebhookReceiver;
  before(async () => {
    t = await createTestApp(ENV, { worker: true, webhooks: true });
    mailroom = new Mailroom(t.apiKey, { baseUrl: await listenOnLoopback(t) });
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  const hooksFor = (messageId: string) => receiver.received.filter((hook) => JSON.parse(hook.body).message_id === messageId);

  it('accepts what Mailroom posts, answering the event as standardwebhooks does; after rotation, only the new secret', async () => {
    const endpoint = (await mailroom.webhooks.create({ url: receiver.url, events: ['delivered'] })).data!;
    const sent = (await mailroom.emails.send(sendBody({ to: [`delivered@${SIMULATOR_DOMAIN}`] }) as unknown as SendEmailRequest)).data!;
    const [hook] = await waitFor(() => (hooksFor(sent.message_id).length > 0 ? hooksFor(sent.message_id) : null), 'the delivered event at the receiver');

    const { data: event, error } = await mailroom.webhooks.verify(hook!.body, hook!.headers, endpoint.secret);
    assert.equal(error, null);
    assert.deepEqual([event!.event, event!.message_id, event!.to], ['delivered', sent.message_id, `delivered@${SIMULATOR_DOMAIN}`]);
    assert.deepEqual(event, new Webhook(endpoint.secret).verify(hook!.body, hook!.headers as Record<string, string>));
    // The raw bytes and a fetch Headers do as well as the string and Node's headers.
    const headers = new Headers(Object.entries(hook!.headers).map(([name, value]) => [name, String(value)]));
    assert.deepEqual((await verifyWebhook(new TextEncoder().encode(hook!.body), headers, endpoint.secret)).data, event);

    const rotated = (await mailroom.webhooks.rotateSecret(endpoint.id)).data!;
    const deliveryId = String(hook!.headers['webhook-id']);
    const retried = await mailroom.webhooks.retryDelivery(endpoint.id, deliveryId);
    assert.equal(retried.data?.id, deliveryId);
    const resent = await waitFor(() => hooksFor(sent.message_id)[1], 'the delivery posted again');
    assert.equal(resent.headers['webhook-id'], deliveryId);
    assert.deepEqual((await verifyWebhook(resent.body, resent.headers, rotated.secret)).data, event);
    assert.equal((await verifyWebhook(resent.body, resent.headers, endpoint.secret)).error?.name, 'invalid_signature');
    await mailroom.webhooks.remove(endpoint.id);
  });
});

describe('verifyWebhook refuses what it should, as standardwebhooks does', () => {
  /** Headers signed by the standardwebhooks package, not by Mailroom: a second implementation to agree with. */
  function signed(secret: string, body: string, id = `whd_${randomBytes(8).toString('hex')}`, seconds = nowSeconds()): Record<string, string> {
    return { 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': new Webhook(secret).sign(id, new Date(seconds * 1000), body) };
  }
  const theirVerdict = (body: string, headers: Record<string, string>, secret: string) => {
    try {
      new Webhook(secret).verify(body, headers);
      return true;
    } catch {
      return false;
    }
  };

  it('verifies the Standard Webhooks test vector, with and without the whsec_ prefix', async () => {
    assert.deepEqual((await verifyWebhook(VECTOR.body, VECTOR.headers, VECTOR.secret, { now: VECTOR.now })).data, { test: 2432232314 });
    assert.deepEqual((await verifyWebhook(VECTOR.body, VECTOR.headers, VECTOR.secret.slice(6), { now: VECTOR.now })).data, { test: 2432232314 });
  });

  it('agrees with standardwebhooks on signed requests and on every kind of change to them', async () => {
    for (let round = 0; round < 20; round++) {
      const secret = newSecret();
      const body = JSON.stringify({ id: `evt_${round}`, event: 'bounced', to: `zoë${round}@example.com`, subject: 'Grüße ✓', n: randomBytes(6).toString('base64') });
      const headers = signed(secret, body);
      const cases: [string, string, Record<string, string>, string][] = [
        ['as signed', body, headers, secret],
        ['another body', body.replace('bounced', 'delivered'), headers, secret],
        ['another id', body, { ...headers, 'webhook-id': 'whd_other' }, secret],
        ['another timestamp', body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) }, secret],
        ['another secret', body, headers, newSecret()],
        ['a v2 signature', body, { ...headers, 'webhook-signature': headers['webhook-signature']!.replace('v1,', 'v2,') }, secret],
        ['a truncated signature', body, { ...headers, 'webhook-signature': headers['webhook-signature']!.slice(0, -4) }, secret],
      ];
      for (const [what, payload, given, key] of cases) {
        const ours = (await verifyWebhook(payload, given, key)).error === null;
        assert.equal(ours, theirVerdict(payload, given, key), `${what}: the same verdict as standardwebhooks`);
        assert.equal(ours, what === 'as signed', what);
      }
    }
  });

  it('accepts a request when any one of several signatures matches (a secret being rotated)', async () => {
    const secret = newSecret();
    const body = '{"event":"delivered"}';
    const headers = signed(secret, body);
    const other = signed(newSecret(), body, headers['webhook-id'], Number(headers['webhook-timestamp']))['webhook-signature'];
    const both = { ...headers, 'webhook-signature': `${other} ${headers['webhook-signature']}` };
    assert.deepEqual((await verifyWebhook(body, both, secret)).data, { event: 'delivered' });
    assert.equal(theirVerdict(body, both, secret), true);
  });

  it('refuses timestamps more than five minutes away, either way, and says why', async () => {
    const secret = newSecret();
    const body = '{"event":"delivered"}';
    // Judged against the second they were signed in: a clock that ticks on between signing and checking
    // would move the boundary by one second. Ours takes the clock; standardwebhooks reads its own, so its
    // verdict is kept only when the second did not change meanwhile.
    const now = Date.now();
    const theirsWithinOneSecond = (offset: number) => {
      for (;;) {
        const at = nowSeconds();
        const verdict = theirVerdict(body, signed(secret, body, 'whd_old', at + offset), secret);
        if (nowSeconds() === at) return verdict;
      }
    };
    for (const offset of [-301, 301]) {
      const headers = signed(secret, body, 'whd_old', Math.floor(now / 1000) + offset);
      assert.deepEqual((await verifyWebhook(body, headers, secret, { now: () => now })).error, { name: 'timestamp_out_of_range', message: 'webhook-timestamp must be within 300 seconds of now' });
      assert.equal(theirsWithinOneSecond(offset), false);
    }
    const recent = signed(secret, body, 'whd_recent', nowSeconds() - 290);
    assert.equal((await verifyWebhook(body, recent, secret)).error, null);
    assert.equal((await verifyWebhook(body, signed(secret, body, 'whd_old', nowSeconds() - 600), secret, { toleranceSeconds: 900 })).error, null);
  });

  it('names missing headers, a malformed secret and a signed body that is not JSON', async () => {
    const secret = newSecret();
    const { 'webhook-signature': _signature, ...unsigned } = signed(secret, '{}');
    assert.equal((await verifyWebhook('{}', unsigned, secret)).error?.name, 'missing_headers');
    const bad = await verifyWebhook('{}', signed(secret, '{}'), 'whsec_not base64!');
    assert.deepEqual(bad.error, { name: 'invalid_secret', message: 'The secret must be whsec_ followed by base64' });
    assert.equal((await verifyWebhook('not json', signed(secret, 'not json'), secret)).error?.name, 'invalid_payload');
  });
});
