import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_BODY_BYTES } from '../src/app.js';
import { SEND_BODY_LIMIT } from '../src/sending/send-routes.js';
import { startServer } from '../src/server.js';
import { loadConfig } from '../src/config.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { mailroomCommand } from './helpers/serve-process.js';
import { migratedStore } from './helpers/test-store.js';

describe('HTTP envelope and error mapping', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_OTHER_PER_MIN: '100000', RATE_LIMIT_SEND_PER_MIN: '100000' });
  });
  after(() => t.close());

  it('answers unknown routes with 404 in the envelope', async () => {
    const res = await t.call('GET', '/v1/nothing-here');
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { success: false, error: 'No route for GET /v1/nothing-here' });
    assert.equal((await t.call('GET', '/v1/nothing-here', { key: null })).statusCode, 401, 'the key is checked before routes are revealed');
  });

  it('guards a route reached through an encoded path like any other', async () => {
    // `/%761/...` decodes to `/v1/...` and matches the stats route: it must not skip the guard.
    const res = await t.call('GET', '/%761/send/stats', { key: null });
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), { success: false, error: 'Invalid or missing API key' });
    assert.ok(res.headers['x-ratelimit-limit']);
    assert.equal((await t.call('GET', '/%761/send/stats')).statusCode, 200);
  });

  it('answers a path whose percent-encoding is broken with 400 in the envelope', async () => {
    const res = await t.call('GET', '/v1/suppressions/%E0%A4%A');
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { success: false, error: 'The request path is not valid URL encoding' });
  });

  it('answers a NUL in the path or the query with 400 in the envelope, on every store', async () => {
    // PostgreSQL's text refuses U+0000: looked up as given, these were 500s there.
    const nul = 'The request URL must not contain NUL characters (%00)';
    for (const url of ['/v1/messages/msg_%00', '/v1/suppressions/a%00@example.com', '/v1/send/logs?to=a%00b', '/v1/webhooks/wh_%00']) {
      const res = await t.call('GET', url);
      assert.equal(res.statusCode, 400, url);
      assert.deepEqual(res.json(), { success: false, error: nul }, url);
    }
    assert.equal((await t.call('GET', '/v1/messages/msg_%00', { key: null })).statusCode, 401, 'the key is checked first');
    const resend = await t.app.inject({ method: 'GET', url: '/compat/resend/emails/%00', headers: { authorization: `Bearer ${t.apiKey}` } });
    // Resend's own form for a refused field: 422 validation_error.
    assert.deepEqual([resend.statusCode, resend.json().name, resend.json().message], [422, 'validation_error', nul]);
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const res = await t.call('DELETE', '/v1/send');
    assert.equal(res.statusCode, 405);
    assert.deepEqual(res.json(), { success: false, error: 'Method DELETE is not allowed on /v1/send' });
    assert.equal(res.headers.allow, 'POST');
    const withId = await t.call('PUT', '/v1/domains/dom_123');
    assert.equal(withId.statusCode, 405);
    assert.deepEqual(withId.headers.allow?.toString().split(', ').sort(), ['DELETE', 'GET', 'HEAD', 'PATCH']);
  });

  it('answers malformed JSON, an empty JSON body and a wrong content type in the envelope', async () => {
    const headers = { 'x-api-key': t.apiKey, 'content-type': 'application/json' };
    const bad = await t.app.inject({ method: 'POST', url: '/v1/send', headers, payload: '{"to": [' });
    assert.deepEqual([bad.statusCode, bad.json()], [400, { success: false, error: 'Request body is not valid JSON: it ends too soon, at line 1, column 9' }]);
    const empty = await t.app.inject({ method: 'POST', url: '/v1/send', headers, payload: '' });
    assert.deepEqual([empty.statusCode, empty.json()], [400, { success: false, error: 'Request body must not be empty when Content-Type is application/json' }]);
    const text = await t.app.inject({ method: 'POST', url: '/v1/send', headers: { 'x-api-key': t.apiKey, 'content-type': 'text/plain' }, payload: 'hi' });
    assert.deepEqual([text.statusCode, text.json()], [415, { success: false, error: 'Content-Type must be application/json' }]);
    const none = await t.app.inject({ method: 'POST', url: '/v1/send', headers: { 'x-api-key': t.apiKey } });
    assert.deepEqual([none.statusCode, none.json()], [400, { success: false, error: 'The request body must be a JSON object' }]);
  });

  it('answers a body over the limit with 413 and writes nothing', async () => {
    // 10 MiB on every route but the two send routes, which take 40 MB of attachments (70 MiB).
    const domain = await t.call('POST', '/v1/domains', { body: { domain: 'x'.repeat(MAX_BODY_BYTES) } });
    assert.deepEqual([domain.statusCode, domain.json()], [413, { success: false, error: 'Request body is too large' }]);
    const res = await t.call('POST', '/v1/send', { body: sendBody({ html: 'x'.repeat(SEND_BODY_LIMIT) }) });
    assert.equal(res.statusCode, 413);
    assert.deepEqual(res.json(), { success: false, error: 'Request body is too large' });
    assert.equal((await t.call('GET', '/v1/send/stats')).json().data.total_sent, 0);
    assert.equal((await t.call('GET', '/v1/domains')).json().data.length, 0);
  });

  it('hides the message of an unexpected error behind a generic 500', async () => {
    const broken = await createTestApp();
    try {
      // Close the store under the app: every query now throws an internal error.
      await broken.db.destroy();
      const res = await broken.call('GET', '/v1/send/stats');
      assert.equal(res.statusCode, 500);
      assert.deepEqual(res.json(), { success: false, error: 'Internal server error' });
    } finally {
      await broken.close();
    }
  });
});

describe('a real listening server', () => {
  it('serves the API over TCP on HOST:PORT', async () => {
    const store = await migratedStore();
    const env = { ...store.env, LOG_LEVEL: 'silent' };
    const created = mailroomCommand(['workspace', 'create', '--name', 'Listen', '--json'], env);
    const { api_key: apiKey } = JSON.parse(created.stdout);
    const app = await startServer(loadConfig({ ...env, PORT: '0', INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0' }));
    try {
      const { port } = app.server.address() as { port: number };
      const base = `http://127.0.0.1:${port}`;
      const health = await fetch(`${base}/v1/health/check`);
      assert.deepEqual([health.status, await health.json()], [200, { status: 'ok' }]);
      const sent = await fetch(`${base}/v1/send`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(sendBody()) });
      assert.equal(sent.status, 200);
      assert.equal(sent.headers.get('x-ratelimit-limit'), '30');
      const { data } = (await sent.json()) as { data: { message_id: string; status: string } };
      assert.equal(data.status, 'sent');
      const logs = await fetch(`${base}/v1/send/logs`, { headers: { 'x-api-key': apiKey } });
      assert.equal(logs.headers.get('x-total-count'), '1');
      assert.equal(((await logs.json()) as { data: { message_id: string }[] }).data[0]!.message_id, data.message_id);
    } finally {
      await app.close();
      await store.drop();
    }
  });
});
