import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { newWebhookSecret, signWebhook, webhookHeaders, webhookSecretKey } from '../src/webhooks/webhook-signature.js';

// The test vector of the Standard Webhooks specification (and of its libraries' own tests).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('Standard Webhooks signing', () => {
  it('signs the published test vector to its published signature', () => {
    assert.equal(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body), VECTOR.signature);
    // The prefix is optional, as in the Standard Webhooks libraries.
    assert.equal(signWebhook(VECTOR.secret.slice('whsec_'.length), VECTOR.id, VECTOR.timestamp, VECTOR.body), VECTOR.signature);
  });

  it('agrees with the standardwebhooks package on the test vector', () => {
    assert.equal(new Webhook(VECTOR.secret).sign(VECTOR.id, new Date(VECTOR.timestamp * 1000), VECTOR.body), VECTOR.signature);
  });

  it('answers every header, x-service-signature carrying the same value as webhook-signature', () => {
    assert.deepEqual(webhookHeaders(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body), {
      'webhook-id': VECTOR.id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': VECTOR.signature,
      'x-service-signature': VECTOR.signature,
      'content-type': 'application/json',
    });
  });

  it('makes secrets of the whsec_ form: 32 random bytes, a new one each time', () => {
    const secrets = Array.from({ length: 50 }, newWebhookSecret);
    for (const secret of secrets) {
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(webhookSecretKey(secret).length, 32);
    }
    assert.equal(new Set(secrets).size, secrets.length);
  });

  it('produces signatures the standardwebhooks package verifies, and that fail on any change', () => {
    const secret = newWebhookSecret();
    const receiver = new Webhook(secret);
    const body = JSON.stringify({ id: 'evt_01', event: 'delivered', message_id: 'msg_01', to: 'zoë@example.com', subject: 'Grüße ✓' });
    const headers = webhookHeaders(secret, 'whd_01jexample', nowSeconds(), body);
    assert.deepEqual(receiver.verify(body, { ...headers }), JSON.parse(body));

    const refused = (payload: string, changed: Record<string, string>, key = secret) =>
      assert.throws(() => new Webhook(key).verify(payload, { ...headers, ...changed }), WebhookVerificationError);
    refused(body.replace('delivered', 'bounced'), {});
    refused(body, { 'webhook-id': 'whd_other' });
    // One second off the signed timestamp itself: nowSeconds() may have ticked on since the headers were made.
    refused(body, { 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) });
    refused(body, {}, newWebhookSecret());
    // Receivers refuse signatures more than five minutes old: a replay of an old request fails.
    const old = webhookHeaders(secret, 'whd_01jexample', nowSeconds() - 600, body);
    assert.throws(() => receiver.verify(body, { ...old }), /too old/);
  });

  it('refuses a secret that is not base64 without echoing it', () => {
    for (const bad of ['whsec_', 'whsec_not base64!', 'hunter2 hunter2']) {
      assert.throws(
        () => signWebhook(bad, 'id', 1, '{}'),
        (error: unknown) => error instanceof TypeError && error.message === 'A webhook secret must be whsec_ followed by base64',
      );
    }
    assert.throws(() => signWebhook(VECTOR.secret, 'id', 1.5, '{}'), /timestampSeconds must be an integer/);
  });
});
