/**
 * The built SDK (sdk/dist) runs in a browser as it is, with no Node API and
 * no bundler: headless Chromium imports its modules from Mailroom's origin
 * and sends, reads the log, and verifies a webhook signature with WebCrypto.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { launchBrowser, type TestBrowser } from './helpers/browser.js';
import { listenOnLoopback } from './helpers/listening-app.js';
import { buildSdk } from './helpers/sdk-dist.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

describe('the SDK in a browser', () => {
  let t: TestApp;
  let baseUrl: string;
  let chromium: TestBrowser;
  let built: Awaited<ReturnType<typeof buildSdk>>;
  before(async () => {
    built = await buildSdk();
    t = await createTestApp();
    baseUrl = await listenOnLoopback(t);
    chromium = await launchBrowser();
    // The package's files, served as if from Mailroom's own origin (the key stays same-origin: Mailroom sends no CORS headers).
    await chromium.page.route(`${baseUrl}/sdk/**`, (route) =>
      route.fulfill({ contentType: 'text/javascript', body: readFileSync(join(built.dir, new URL(route.request().url()).pathname.slice('/sdk/'.length))) }),
    );
  });
  after(async () => {
    await chromium.close();
    await t.close();
    built.remove();
  });

  it('sends, lists the log and verifies a webhook in Chromium', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"event":"delivered","message_id":"msg_1"}';
    const seconds = Math.floor(Date.now() / 1000);
    const signature = new Webhook(secret).sign('whd_browser', new Date(seconds * 1000), body);
    await chromium.page.goto(`${baseUrl}/v1/health/check`);

    const outcome = await chromium.page.evaluate(
      async ({ apiKey, secret, body, headers }) => {
        const sdk = await import('/sdk/index.js' as string);
        const mailroom = new sdk.Mailroom(apiKey, { baseUrl: location.origin });
        const sent = await mailroom.emails.send({ to: ['browser@example.com'], from_email: 'hello@sandbox.mailroom.test', subject: 'From a browser', text: 'Hi' });
        const entries: string[] = [];
        for await (const entry of mailroom.logs.list({ message_id: sent.data.message_id })) entries.push(`${entry.to} ${entry.type}`);
        const verified = await sdk.verifyWebhook(body, new Headers(headers), secret);
        const forged = await sdk.verifyWebhook(body.replace('delivered', 'bounced'), new Headers(headers), secret);
        return { sent, entries, verified, forged: forged.error.name, notFound: (await mailroom.domains.get('dom_unknown')).error };
      },
      { apiKey: t.apiKey, secret, body, headers: { 'webhook-id': 'whd_browser', 'webhook-timestamp': String(seconds), 'webhook-signature': signature } },
    );
    assert.equal(outcome.sent.error, null);
    assert.match(outcome.sent.data.message_id, /^msg_/);
    assert.deepEqual(outcome.entries, ['browser@example.com send']);
    assert.deepEqual(outcome.verified, { data: { event: 'delivered', message_id: 'msg_1' }, error: null });
    assert.equal(outcome.forged, 'invalid_signature');
    assert.deepEqual(outcome.notFound, { status: 404, name: 'not_found', message: 'Domain not found', attempts: 1 });
    assert.deepEqual(chromium.problems.filter((p) => !p.includes('404')), [], 'no console or page errors');
  });
});
