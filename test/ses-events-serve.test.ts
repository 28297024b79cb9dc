/**
 * POST /v1/inbound/ses on a real `mailroom serve`, trusting the test CA through NODE_EXTRA_CA_CERTS as an
 * operator would trust a private one: a notification applied, a subscription confirmed (and shown on
 * /readyz until then), and every notification refused, with the reason logged, while SES_SNS_TOPIC_ARNS is unset.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { showServeOutputOfFailedTests, startServe, type ServeProcess } from './helpers/serve-process.js';
import { startSnsPublisher, type SnsPublisher } from './helpers/sns-publisher.js';
import { sendThroughSes } from './helpers/ses-sent.js';
import { bounceEvent } from './helpers/ses-event-json.js';
import { waitFor } from './helpers/wait-for.js';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:mailroom-ses-events';

describe('SES events through SNS on mailroom serve', () => {
  showServeOutputOfFailedTests();
  let sns: SnsPublisher;
  let t: TestApp;
  let serve: ServeProcess;
  before(async () => {
    sns = await startSnsPublisher();
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000' });
    // No worker: the sends stay as the SES hand-over left them.
    serve = await startServe({ ...t.storeEnv, WORKER_ENABLED: 'false', NODE_EXTRA_CA_CERTS: sns.caFile, SES_SNS_TOPIC_ARNS: TOPIC, SES_SNS_TRUSTED_HOSTS: sns.host });
  });
  after(async () => {
    await serve?.stop();
    await t?.close();
    await sns?.close();
  });

  const post = (base: string, body: unknown) => fetch(`${base}/v1/inbound/ses`, { method: 'POST', headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' }, body: JSON.stringify(body) });

  it('applies a Permanent bounce to the one recipient it names, fetching the certificate once', async () => {
    const sent = await sendThroughSes(t.call, t.store, ['gone@example.com', 'here@example.com']);
    const about = { sesMessageId: sent.sesIds['gone@example.com']!, destination: ['gone@example.com'] };
    const fetchesBefore = sns.certFetches;
    for (const signatureVersion of ['1', '2'] as const) {
      const res = await post(serve.base, sns.notification({ topicArn: TOPIC, message: bounceEvent(about, [{ emailAddress: 'gone@example.com' }]), signatureVersion }));
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal((await res.json()).data.outcome, 'received');
    }
    await waitFor(async () => (await t.store.logs.findSendEntry(sent.messageId, 'gone@example.com'))?.status === 'bounced', 'the bounce applied');
    assert.equal((await t.store.logs.findSendEntry(sent.messageId, 'here@example.com'))?.status, 'sent');
    assert.equal(sns.certFetches - fetchesBefore, 1, 'cached by URL');
  });

  it('confirms a subscription, shown on /readyz until it is', async () => {
    sns.failConfirms = 1;
    const res = await post(serve.base, sns.subscription({ topicArn: TOPIC }));
    assert.equal(res.status, 200);
    const readyz = async () => (await fetch(`${serve.base}/readyz`)).json();
    await waitFor(async () => sns.confirmCalls.length >= 1, 'the first confirmation call');
    assert.deepEqual(await readyz(), { status: 'ready', ses_sns_subscriptions_pending: [TOPIC] });
    await waitFor(async () => (await readyz()).ses_sns_subscriptions_pending === undefined, 'the subscription confirmed', { timeoutMs: 15_000 });
    assert.equal(sns.confirmCalls.length, 2);
    await waitFor(() => /SNS subscription confirmed/.test(serve.output()), 'the confirmation logged');
    assert.doesNotMatch(serve.output(), /Token=/, 'the SubscribeURL (its token) is never logged');
  });

  it('refuses everything while SES_SNS_TOPIC_ARNS is unset, and logs why', async () => {
    const closed = await startServe({ ...t.storeEnv, WORKER_ENABLED: 'false', NODE_EXTRA_CA_CERTS: sns.caFile, SES_SNS_TRUSTED_HOSTS: sns.host });
    try {
      const res = await post(closed.base, sns.notification({ topicArn: TOPIC, message: '{}' }));
      assert.equal(res.status, 403);
      assert.deepEqual(await res.json(), { success: false, error: 'SNS notification refused: SES_SNS_TOPIC_ARNS is not set on this installation' });
      await waitFor(() => /SES_SNS_TOPIC_ARNS is not set/.test(closed.output()), 'the log line saying why');
    } finally {
      await closed.stop();
    }
  });
});
