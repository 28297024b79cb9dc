/**
 * A message's history and content through the dashboard API
 * (dashboard/message-routes.ts): the same answers as /v1/messages for every
 * role of the workspace, the MIME as a `.eml` download, and the HTML body as
 * a document of its own under the frame's policy (mail-html-frame.ts), with
 * and without remote images; nothing for anyone outside the workspace.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SIMULATOR_DOMAIN } from '../src/delivery/sandbox-provider.js';
import { dashboardRequest, signedInPerson } from './helpers/dashboard-client.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const STRICT = "default-src 'none'; img-src data: cid:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox";
const REMOTE = "default-src 'none'; img-src data: cid: https: http:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox";
/** What a CSP cannot stop, written as senders write it: mixed case, `/` for a space, a referrer policy of its own. */
const HTML = [
  '<html><head><META http-equiv="refresh" content="0;url=http://192.0.2.1/"><meta/name=referrer content=unsafe-url>',
  '<link rel=preconnect href="http://192.0.2.1"></head>',
  '<body><p>Hello</p><img src="http://192.0.2.1/x.png" ReferrerPolicy="unsafe-url" alt="logo"></body></html>',
].join('');

describe('message detail in the dashboard API', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let viewer: Awaited<ReturnType<typeof signedInPerson>>;
  let outsider: Awaited<ReturnType<typeof signedInPerson>>;
  let outsiderWorkspace = '';
  let id = '';
  const base = () => `/workspaces/${t.workspaceId}/messages`;
  const get = (path: string, who = viewer) => dashboardRequest(t, 'GET', path, who);

  before(async () => {
    receiver = await startWebhookReceiver();
    // The wait below asks every 25 ms: the default 60 requests a minute would run out on a slow machine.
    t = await createTestApp({ WORKER_POLL_MS: '20', WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_OTHER_PER_MIN: '100000' }, { worker: true, webhooks: true });
    assert.equal((await t.call('POST', '/v1/webhooks', { body: { url: receiver.url } })).statusCode, 201);
    viewer = await signedInPerson(t, t.workspaceId, 'viewer');
    outsiderWorkspace = (await t.newWorkspace()).workspaceId;
    outsider = await signedInPerson(t, outsiderWorkspace, 'admin');
    const to = [`bounce@${SIMULATOR_DOMAIN}`, `delivered@${SIMULATOR_DOMAIN}`];
    id = (await t.call('POST', '/v1/send', { body: sendBody({ to, reply_to: 'Help <help@acme.example>', html: HTML, text: 'Hello' }) })).json().data.message_id;
    await waitFor(async () => {
      const detail = (await t.call('GET', `/v1/messages/${id}`)).json().data;
      return detail.webhook_deliveries.length === 2 && detail.webhook_deliveries.every((d: { status: string }) => d.status === 'delivered');
    }, 'both events posted to the receiver');
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it("answers a viewer the message's history and content as /v1 does", async () => {
    const detail = await get(`${base()}/${id}`);
    assert.equal(detail.statusCode, 200, detail.body);
    assert.deepEqual(detail.json().data, (await t.call('GET', `/v1/messages/${id}`)).json().data);
    const { recipients, webhook_deliveries } = detail.json().data;
    assert.deepEqual(recipients.map((r: { status: string }) => r.status), ['bounced', 'delivered']);
    assert.equal(webhook_deliveries.length, 2);
    const content = await get(`${base()}/${id}/content`);
    assert.equal(content.statusCode, 200);
    assert.deepEqual(content.json().data, (await t.call('GET', `/v1/messages/${id}/content`)).json().data);
    assert.equal(content.json().data.html, HTML, 'the JSON carries the HTML as sent; only the frame gets it made inert');
  });

  it('answers the MIME as handed over as a .eml download', async () => {
    const res = await get(`${base()}/${id}/raw`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'message/rfc822');
    assert.equal(res.headers['content-disposition'], `attachment; filename="${id}.eml"`);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.body, (await t.call('GET', `/v1/messages/${id}/content`)).json().data.raw);
    assert.match(res.body, /^DKIM-Signature: /m);

    await t.call('POST', '/v1/suppressions', { body: { email: 'listed@example.com' } });
    const never = (await t.call('POST', '/v1/send', { body: sendBody({ to: ['listed@example.com'] }) })).json().data.message_id;
    const none = await get(`${base()}/${never}/raw`);
    assert.deepEqual([none.statusCode, none.json().error], [404, 'The message was never built: no recipient was handed to a provider (each was suppressed or failed before delivery)']);
  });

  it('serves the HTML for the sandboxed frame under its own policy: nothing remote until asked, framed by the dashboard alone', async () => {
    const res = await get(`${base()}/${id}/html`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['content-security-policy'], STRICT);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN');
    assert.equal(
      res.body,
      [
        '<html><head><x-inert-META http-equiv="refresh" content="0;url=http://192.0.2.1/"><x-inert-meta/name=referrer content=unsafe-url>',
        '<x-inert-link rel=preconnect href="http://192.0.2.1"></head>',
        '<body><p>Hello</p><img src="http://192.0.2.1/x.png" x-inert-referrerpolicy="unsafe-url" alt="logo"></body></html>',
      ].join(''),
    );

    const remote = await get(`${base()}/${id}/html?remote_images=1`);
    assert.deepEqual([remote.statusCode, remote.headers['content-security-policy'], remote.body], [200, REMOTE, res.body]);
    // Every other answer keeps the dashboard's policy: no one frames it.
    assert.match(String((await get(`${base()}/${id}`)).headers['content-security-policy']), /frame-ancestors 'none'/);

    const refused = await get(`${base()}/${id}/html?remote_images=yes`);
    assert.deepEqual([refused.statusCode, refused.headers['content-security-policy']], [400, STRICT], 'an error answer is under the strict policy too');
    const textOnly = (await t.call('POST', '/v1/send', { body: sendBody({ to: [`delivered@${SIMULATOR_DOMAIN}`] }) })).json().data.message_id;
    const none = await get(`${base()}/${textOnly}/html`);
    assert.deepEqual([none.statusCode, none.json().error, none.headers['content-security-policy']], [404, 'The message has no HTML part', STRICT]);
  });

  it("answers 404 for another workspace's message, and 401 without a session", async () => {
    for (const part of ['', '/content', '/raw', '/html']) {
      const theirs = await get(`/workspaces/${outsiderWorkspace}/messages/${id}${part}`, outsider);
      assert.deepEqual([theirs.statusCode, theirs.json()], [404, { success: false, error: 'Message not found' }], `their workspace${part}`);
      const ours = await get(`${base()}/${id}${part}`, outsider);
      assert.deepEqual([ours.statusCode, ours.json()], [404, { success: false, error: 'Workspace not found' }], `our workspace${part}`);
      const unknown = await get(`${base()}/msg_01jzzzzzzzzzzzzzzzzzzzzzzz${part}`);
      assert.deepEqual([unknown.statusCode, unknown.json().error], [404, 'Message not found'], `unknown${part}`);
      assert.equal((await dashboardRequest(t, 'GET', `${base()}/${id}${part}`)).statusCode, 401, `signed out${part}`);
    }
  });
});
