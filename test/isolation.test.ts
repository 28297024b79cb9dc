import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../src/lib/ids.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';

// Workspace A owns data; workspace B's key must neither see nor touch it.
describe('workspace isolation', () => {
  let t: TestApp;
  let b: { workspaceId: string; apiKey: string };
  let domainId: string;
  let keyId: string;
  let webhookId: string;
  let webhookDeliveryId: string;
  let upstreamId: string;
  let templateId: string;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_OTHER_PER_MIN: '100000' });
    b = await t.newWorkspace('B');
    domainId = (await t.call('POST', '/v1/domains', { body: { domain: 'a-only.example' } })).json().data.id;
    keyId = (await t.call('POST', '/v1/api-keys', { body: { name: 'a-second' } })).json().data.id;
    assert.equal((await t.call('POST', '/v1/suppressions', { body: { email: 'a-suppressed@example.com' } })).statusCode, 201);
    await t.call('POST', '/v1/send', { body: sendBody({ to: ['a-recipient@example.com'] }) });
    webhookId = (await t.call('POST', '/v1/webhooks', { body: { url: 'https://93.184.216.34/a-only' } })).json().data.id;
    upstreamId = (await t.call('POST', '/v1/upstreams', { body: { name: 'a-only', type: 'smtp', url: 'smtp://a:a-password@93.184.216.34:587' } })).json().data.id;
    templateId = (await t.call('POST', '/v1/templates', { body: { name: 'A only', html: '<p>a</p>' } })).json().data.id;
    // A delivery as the fan-out writes it, so the retry endpoint names a real one of A's.
    webhookDeliveryId = newId('whd');
    const at = new Date().toISOString();
    await t.db
      .insertInto('webhook_deliveries')
      .values({ id: webhookDeliveryId, webhook_id: webhookId, workspace_id: t.workspaceId, event_id: newId('evt'), event_type: 'delivered', payload: '{}', state: 'failed', attempts: 4, available_at: at, lease_owner: null, lease_expires_at: null, last_status: 500, last_error: 'HTTP 500', created_at: at, updated_at: at })
      .execute();
  });
  after(() => t.close());

  // Every endpoint that names one of A's resources in its path, and how to name an unknown one instead.
  const unknownId = (url: string) => url.replace(/(dom|key|wh|ups|tpl)_[0-9a-z]+/, '$1_01jzzzzzzzzzzzzzzzzzzzzzzz');
  const unknownDelivery = (url: string) => url.replace(/whd_[0-9a-z]+/, 'whd_01jzzzzzzzzzzzzzzzzzzzzzzz');
  const unknownEmail = (url: string) => url.replace(/[^/]+$/, 'nobody%40example.com');
  const byId: [string, () => string, (url: string) => string, string, unknown?][] = [
    ['GET /v1/domains/{id}', () => `/v1/domains/${domainId}`, unknownId, 'Domain not found'],
    ['PATCH /v1/domains/{id}', () => `/v1/domains/${domainId}`, unknownId, 'Domain not found', { upstream_ids: [] }],
    ['DELETE /v1/domains/{id}', () => `/v1/domains/${domainId}`, unknownId, 'Domain not found'],
    ['POST /v1/domains/{id}/verify', () => `/v1/domains/${domainId}/verify`, unknownId, 'Domain not found'],
    ['DELETE /v1/api-keys/{id}', () => `/v1/api-keys/${keyId}`, unknownId, 'API key not found'],
    ['GET /v1/suppressions/{email}', () => '/v1/suppressions/a-suppressed%40example.com', unknownEmail, 'Suppression not found'],
    ['DELETE /v1/suppressions/{email}', () => '/v1/suppressions/a-suppressed%40example.com', unknownEmail, 'Suppression not found'],
    ['GET /v1/webhooks/{id}', () => `/v1/webhooks/${webhookId}`, unknownId, 'Webhook not found'],
    ['DELETE /v1/webhooks/{id}', () => `/v1/webhooks/${webhookId}`, unknownId, 'Webhook not found'],
    ['POST /v1/webhooks/{id}/rotate-secret', () => `/v1/webhooks/${webhookId}/rotate-secret`, unknownId, 'Webhook not found'],
    ['POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry', () => `/v1/webhooks/${webhookId}/deliveries/${webhookDeliveryId}/retry`, unknownId, 'Webhook not found'],
    ['GET /v1/upstreams/{id}', () => `/v1/upstreams/${upstreamId}`, unknownId, 'Upstream not found'],
    ['PATCH /v1/upstreams/{id}', () => `/v1/upstreams/${upstreamId}`, unknownId, 'Upstream not found', { name: 'renamed by B' }],
    ['DELETE /v1/upstreams/{id}', () => `/v1/upstreams/${upstreamId}`, unknownId, 'Upstream not found'],
    ['POST /v1/upstreams/{id}/test', () => `/v1/upstreams/${upstreamId}/test`, unknownId, 'Upstream not found'],
    ['GET /v1/templates/{id}', () => `/v1/templates/${templateId}`, unknownId, 'Template not found'],
    ['DELETE /v1/templates/{id}', () => `/v1/templates/${templateId}`, unknownId, 'Template not found'],
    ['POST /v1/templates/{id}/publish', () => `/v1/templates/${templateId}/publish`, unknownId, 'Template not found'],
    ['POST /v1/templates/{id}/duplicate', () => `/v1/templates/${templateId}/duplicate`, unknownId, 'Template not found'],
    ['GET /v1/templates/{id}/versions', () => `/v1/templates/${templateId}/versions`, unknownId, 'Template not found'],
  ];
  for (const [name, url, unknownUrl, error, body] of byId) {
    it(`${name} answers 404 to another workspace's key, exactly as for an unknown id`, async () => {
      const [method] = name.split(' ');
      const res = await t.call(method!, url(), { key: b.apiKey, body });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), { success: false, error });
      assert.notEqual(unknownUrl(url()), url());
      const unknown = await t.call(method!, unknownUrl(url()), { key: b.apiKey, body });
      assert.deepEqual([unknown.statusCode, unknown.json()], [404, { success: false, error }]);
    });
  }

  it('answers B 404 Webhook delivery not found when it names A\'s delivery under an endpoint of its own', async () => {
    const own = (await t.call('POST', '/v1/webhooks', { key: b.apiKey, body: { url: 'https://93.184.216.34/b' } })).json().data.id;
    const url = `/v1/webhooks/${own}/deliveries/${webhookDeliveryId}/retry`;
    for (const path of [url, unknownDelivery(url)]) {
      const res = await t.call('POST', path, { key: b.apiKey });
      assert.deepEqual([res.statusCode, res.json()], [404, { success: false, error: 'Webhook delivery not found' }]);
    }
    assert.equal((await t.call('DELETE', `/v1/webhooks/${own}`, { key: b.apiKey })).statusCode, 200);
  });

  it('leaves A\'s domain, key, suppression, webhook and upstream untouched after B\'s attempts', async () => {
    const shown = await t.call('GET', `/v1/domains/${domainId}`);
    assert.equal(shown.statusCode, 200);
    assert.equal(shown.json().data.last_checked_at, null, 'B\'s verify attempt did not run a check');
    const keys = (await t.call('GET', '/v1/api-keys')).json().data.map((k: { id: string }) => k.id);
    assert.ok(keys.includes(keyId));
    assert.equal((await t.call('GET', '/v1/suppressions/a-suppressed%40example.com')).statusCode, 200);
    const webhook = (await t.call('GET', `/v1/webhooks/${webhookId}`)).json().data;
    assert.deepEqual(webhook.deliveries.map((d: { id: string; state: string }) => [d.id, d.state]), [[webhookDeliveryId, 'failed']], 'B\'s retry changed nothing');
    assert.equal(webhook.updated_at, webhook.created_at, 'B\'s rotation changed nothing');
    const upstream = (await t.call('GET', `/v1/upstreams/${upstreamId}`)).json().data;
    assert.deepEqual([upstream.name, upstream.updated_at], ['a-only', upstream.created_at], 'B\'s change changed nothing');
  });

  it('shows B none of A\'s domains, keys, logs, stats, suppressions, webhooks or upstreams', async () => {
    assert.deepEqual((await t.call('GET', '/v1/domains', { key: b.apiKey })).json().data, []);
    const keys = (await t.call('GET', '/v1/api-keys', { key: b.apiKey })).json().data;
    assert.deepEqual(keys.map((k: { name: string }) => k.name), ['default']);
    const logs = await t.call('GET', '/v1/send/logs', { key: b.apiKey });
    assert.deepEqual([logs.headers['x-total-count'], logs.json().data], ['0', []]);
    assert.equal((await t.call('GET', '/v1/send/stats', { key: b.apiKey })).json().data.total_sent, 0);
    assert.equal((await t.call('GET', '/v1/send/stats')).json().data.total_sent, 1);
    const suppressions = await t.call('GET', '/v1/suppressions', { key: b.apiKey });
    assert.deepEqual([suppressions.headers['x-total-count'], suppressions.json().data], ['0', []]);
    assert.equal((await t.call('GET', '/v1/suppressions')).headers['x-total-count'], '1');
    assert.deepEqual((await t.call('GET', '/v1/webhooks', { key: b.apiKey })).json().data, []);
    assert.equal((await t.call('GET', '/v1/webhooks')).json().data.length, 1);
    assert.deepEqual((await t.call('GET', '/v1/upstreams', { key: b.apiKey })).json().data, []);
    assert.equal((await t.call('GET', '/v1/upstreams')).json().data.length, 1);
  });

  it('does not let B send from A\'s verified domain', async () => {
    await t.db.updateTable('domains').set({ status: 'verified' }).where('id', '=', domainId).execute();
    assert.equal((await t.call('POST', '/v1/send', { body: sendBody({ from_email: 'a@a-only.example' }) })).json().data.status, 'sent');
    const res = await t.call('POST', '/v1/send', { key: b.apiKey, body: sendBody({ from_email: 'b@a-only.example' }) });
    assert.equal(res.json().data.status, 'failed');
    assert.equal(res.json().data.error, 'Sender domain a-only.example is not a domain of this workspace; add and verify it first');
  });
});
