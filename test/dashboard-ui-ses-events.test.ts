/**
 * The message page of a send through SES in Chromium, against a real `mailroom serve` hearing SES through
 * SNS: a DeliveryDelay in one recipient's timeline, and "No event from SES yet" for the other, whose
 * hand-over is older than SES_EVENT_TIMEOUT. axe-core audits it; MAILROOM_SCREENSHOTS keeps pictures.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { BIN, showServeOutputOfFailedTests, startServe, type ServeProcess } from './helpers/serve-process.js';
import { startSnsPublisher, type SnsPublisher } from './helpers/sns-publisher.js';
import { sendThroughSes } from './helpers/ses-sent.js';
import { deliveryDelayEvent } from './helpers/ses-event-json.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:mailroom-ses-events';
const PASSWORD = 'a long enough password';

describe('the message page of a send through SES', () => {
  showServeOutputOfFailedTests();
  let sns: SnsPublisher;
  let t: TestApp;
  let serve: ServeProcess;
  let chromium: TestBrowser;
  before(async () => {
    sns = await startSnsPublisher();
    t = await createTestApp();
    serve = await startServe({ ...t.storeEnv, WORKER_ENABLED: 'false', SES_EVENT_TIMEOUT: '1h', NODE_EXTRA_CA_CERTS: sns.caFile, SES_SNS_TOPIC_ARNS: TOPIC, SES_SNS_TRUSTED_HOSTS: sns.host });
    const args = ['user', 'create', '--email', 'ada@example.com', '--password-stdin', '--workspace', t.workspaceId, '--role', 'admin'];
    const run = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...t.storeEnv }, input: `${PASSWORD}\n`, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    chromium = await launchBrowser();
  });
  after(async () => {
    await chromium?.close();
    await serve?.stop();
    await t?.close();
    await sns?.close();
  });

  it('shows the delay and the overdue note', async () => {
    const sent = await sendThroughSes(t.call, t.store, ['late@example.com', 'slow@example.com'], { acceptedAt: new Date(Date.now() - 2 * 3_600_000) });
    const envelope = sns.notification({ topicArn: TOPIC, message: deliveryDelayEvent({ sesMessageId: sent.sesIds['slow@example.com']!, destination: ['slow@example.com'] }, ['slow@example.com']) });
    const res = await fetch(`${serve.base}/v1/inbound/ses`, { method: 'POST', headers: { 'content-type': 'text/plain; charset=UTF-8' }, body: JSON.stringify(envelope) });
    assert.equal(res.status, 200);
    await waitFor(async () => (await t.store.messageEvents.listForMessage(sent.messageId)).length === 1, 'the delay recorded');

    const { page } = chromium;
    await page.goto(serve.base);
    await page.getByLabel('E-mail address').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto(`${serve.base}/messages/${sent.messageId}`);
    const slow = page.getByRole('list', { name: 'Timeline of slow@example.com' });
    await slow.getByText('Delayed: the provider is still trying').waitFor();
    assert.equal(await slow.getByText('Accepted by SES: its events say what came of it').count(), 1);
    assert.match(await slow.innerText(), /TransientCommunicationFailure: smtp; 421 4\.4\.1 Unable to connect to remote host/);
    const late = page.getByRole('region', { name: /late@example\.com/ });
    assert.match(await late.innerText(), /No event from SES yet: SES accepted it at .*; check the SNS subscription/);
    assert.doesNotMatch(await page.getByRole('region', { name: /slow@example\.com/ }).innerText(), /No event from SES yet/);
    await chromium.shoot('message-ses-events');
    assert.deepEqual(chromium.inaccessible, []);
    // The 401 is the session check of the page opened before signing in.
    assert.deepEqual(unexpectedProblems(chromium.problems, [401]), []);
  });
});
