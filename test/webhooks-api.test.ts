import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createSecretBox } from '../src/lib/secret-box.js';
import { newId } from '../src/lib/ids.js';
import { webhookSigningSecret, type WebhookDeliveryView, type WebhookView } from '../src/webhooks/webhook-service.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

type Workspace = { workspaceId: string; apiKey: string };

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ALL_EVENTS = ['delivered', 'bounced', 'complained', 'suppressed', 'failed'];
/** A public address (an IP literal: no DNS in the test); nothing is ever posted to it here. */
const PUBLIC_URL = 'https://93.184.216.34/hooks/mailroom';
const NOT_FOUND = { success: false, error: 'Webhook not found' };
const DELIVERY_NOT_FOUND = { success: false, error: 'Webhook delivery not found' };
const PUBLIC_ONLY = 'webhooks may only be sent to public addresses, unless the server runs with WEBHOOK_ALLOW_PRIVATE=true';

const masked = (secret: string) => `whsec_${secret.slice(6, 10)}********${secret.slice(-4)}`;

describe('webhook endpoints: /v1/webhooks', () => {
  let t: TestApp;
  before(async () => {
    // WEBHOOK_ALLOW_PRIVATE is left unset: the SSRF rule is on, as in production.
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '50000', RATE_LIMIT_OTHER_PER_MIN: '100000' });
  });
  after(() => t.close());

  const create = (ws: Workspace, body: unknown) => t.call('POST', '/v1/webhooks', { key: ws.apiKey, body });
  const created = async (ws: Workspace, body: Record<string, unknown> = { url: PUBLIC_URL }) => {
    const res = await create(ws, body);
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data as { id: string; url: string; events: string[]; secret: string; created_at: string };
  };
  const row = (id: string) => t.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const webhookCount = async () => Number((await t.db.selectFrom('webhooks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  /** Deliveries written as the fan-out writes them, oldest first; answers their ids in that order. */
  async function seedDeliveries(ws: Workspace, webhookId: string, rows: Partial<Record<string, unknown>>[]): Promise<string[]> {
    const ids: string[] = [];
    for (const [i, overrides] of rows.entries()) {
      const id = newId('whd');
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
      await t.db
        .insertInto('webhook_deliveries')
        .values({
          id,
          webhook_id: webhookId,
          workspace_id: ws.workspaceId,
          event_id: `evt_${String(i).padStart(26, '0')}`,
          event_type: 'delivered',
          payload: '{}',
          state: 'delivered',
          attempts: 1,
          available_at: at,
          lease_owner: null,
          lease_expires_at: null,
          last_status: 200,
          last_error: null,
          created_at: at,
          updated_at: at,
          ...overrides,
        })
        .execute();
      ids.push(id);
    }
    return ids;
  }

  describe('POST /v1/webhooks', () => {
    it('creates an endpoint for every event with a fresh whsec_ secret: 201 {id, url, events, secret, created_at}', async () => {
      const ws = await t.newWorkspace();
      const before = Date.now();
      const res = await create(ws, { url: PUBLIC_URL });
      assert.equal(res.statusCode, 201);
      assert.equal(res.headers['x-ratelimit-limit'], '100000', 'drawn on the "other" budget');
      const { data } = res.json();
      assert.deepEqual(Object.keys(data), ['id', 'url', 'events', 'secret', 'created_at']);
      assert.match(data.id, /^wh_[0-9a-z]{26}$/);
      assert.equal(data.url, PUBLIC_URL);
      assert.deepEqual(data.events, ALL_EVENTS);
      assert.match(data.secret, SECRET);
      assert.match(data.created_at, ISO);
      assert.ok(Date.parse(data.created_at) >= before - 5);
      const stored = await row(data.id);
      assert.deepEqual([stored.workspace_id, stored.url, JSON.parse(stored.events)], [ws.workspaceId, PUBLIC_URL, ALL_EVENTS]);
    });

    it('gives every endpoint its own secret', async () => {
      const ws = await t.newWorkspace();
      const secrets = await Promise.all([1, 2, 3].map(async () => (await created(ws)).secret));
      assert.equal(new Set(secrets).size, 3);
    });

    it('subscribes to a subset of the events, duplicates removed, in the order the API lists them', async () => {
      const ws = await t.newWorkspace();
      const data = await created(ws, { url: PUBLIC_URL, events: ['failed', 'bounced', 'failed', 'bounced'] });
      assert.deepEqual(data.events, ['bounced', 'failed']);
      assert.deepEqual(JSON.parse((await row(data.id)).events), ['bounced', 'failed']);
      assert.deepEqual((await created(ws, { url: PUBLIC_URL, events: ['complained'] })).events, ['complained']);
    });

    it('subscribes to the opt-in upstream events only when named, after the message events', async () => {
      const ws = await t.newWorkspace();
      const data = await created(ws, { url: PUBLIC_URL, events: ['upstream.up', 'delivered', 'upstream.down'] });
      assert.deepEqual(data.events, ['delivered', 'upstream.down', 'upstream.up']);
      assert.deepEqual((await created(ws, { url: PUBLIC_URL, events: ['upstream.down'] })).events, ['upstream.down']);
      assert.ok(!(await created(ws)).events.some((e) => e.startsWith('upstream.')), 'the default list leaves them out');
    });

    it('keeps the URL as the URL standard writes it', async () => {
      const ws = await t.newWorkspace();
      assert.equal((await created(ws, { url: 'HTTP://93.184.216.34:8080' })).url, 'http://93.184.216.34:8080/');
      assert.equal((await created(ws, { url: 'https://[2606:4700:4700::1111]/a/../hook?x=1' })).url, 'https://[2606:4700:4700::1111]/hook?x=1');
    });

    const badBodies: [string, unknown, string][] = [
      ['no url', {}, 'url is required'],
      ['a non-string url', { url: 42 }, 'url must be a string'],
      ['an empty url', { url: '' }, 'url must be an absolute http or https URL'],
      ['a relative url', { url: '/hooks' }, 'url must be an absolute http or https URL'],
      ['an ftp url', { url: 'ftp://93.184.216.34/hook' }, 'url must be an http or https URL (got ftp)'],
      ['a url with credentials', { url: 'https://user:hunter2@93.184.216.34/hook' }, 'url must not contain a user name or password'],
      ['a url over 2048 characters', { url: `https://93.184.216.34/${'a'.repeat(2048)}` }, 'url must be at most 2048 characters long'],
      ['events that is not an array', { url: PUBLIC_URL, events: 'delivered' }, 'events must be an array'],
      ['an event that is not a string', { url: PUBLIC_URL, events: ['delivered', 7] }, 'events[1] must be a string'],
      ['no events', { url: PUBLIC_URL, events: [] }, 'events must not be empty: leave it out to receive every event'],
      ['an unknown event', { url: PUBLIC_URL, events: ['delivered', 'read'] }, 'events must contain only delivered, bounced, complained, suppressed, failed, opened, clicked, upstream.down, upstream.up (got "read")'],
      ['an event in capitals', { url: PUBLIC_URL, events: ['DELIVERED'] }, 'events must contain only delivered, bounced, complained, suppressed, failed, opened, clicked, upstream.down, upstream.up (got "DELIVERED")'],
      ['a secret of its own', { url: PUBLIC_URL, secret: 'whsec_mine' }, 'secret is not a supported field'],
    ];
    for (const [name, body, error] of badBodies) {
      it(`refuses ${name} with 400 naming the field, and writes nothing`, async () => {
        const ws = await t.newWorkspace();
        const before = await webhookCount();
        const res = await create(ws, body);
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), { success: false, error });
        assert.equal(await webhookCount(), before);
      });
    }

    // WEBHOOK_ALLOW_PRIVATE is unset in this app.
    const ssrf: [string, string][] = [
      ['http://127.0.0.1', `url points to 127.0.0.1, a loopback address; ${PUBLIC_ONLY}`],
      ['http://127.0.0.1:3000/v1/send', `url points to 127.0.0.1, a loopback address; ${PUBLIC_ONLY}`],
      ['http://169.254.169.254/latest/meta-data/iam/', `url points to 169.254.169.254, a cloud metadata address; ${PUBLIC_ONLY}`],
      ['http://10.0.0.1', `url points to 10.0.0.1, a private address; ${PUBLIC_ONLY}`],
      ['http://192.168.1.1/hook', `url points to 192.168.1.1, a private address; ${PUBLIC_ONLY}`],
      ['http://100.64.0.1', `url points to 100.64.0.1, a shared (carrier-grade NAT) address; ${PUBLIC_ONLY}`],
      ['http://[::1]:8080/', `url points to ::1, a loopback address; ${PUBLIC_ONLY}`],
      ['http://[::ffff:127.0.0.1]/', `url points to ::ffff:7f00:1, a loopback address; ${PUBLIC_ONLY}`],
      ['http://[fd00::1]/', `url points to fd00::1, a unique-local address; ${PUBLIC_ONLY}`],
    ];
    for (const [url, error] of ssrf) {
      it(`refuses ${url} with 400 saying why, and writes nothing`, async () => {
        const ws = await t.newWorkspace();
        const before = await webhookCount();
        const res = await create(ws, { url });
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), { success: false, error });
        assert.equal(await webhookCount(), before);
      });
    }

    it('resolves host names: localhost is refused as loopback', async () => {
      const res = await create(await t.newWorkspace(), { url: 'http://localhost:3000/hook' });
      assert.equal(res.statusCode, 400);
      assert.match(res.json().error, /^url host localhost resolves to (127\.0\.0\.1|::1), a loopback address; webhooks may only be sent to public addresses, unless the server runs with WEBHOOK_ALLOW_PRIVATE=true$/);
    });

    it('accepts private targets when WEBHOOK_ALLOW_PRIVATE=true', async () => {
      const open = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
      try {
        for (const [url] of ssrf) {
          const res = await open.call('POST', '/v1/webhooks', { body: { url } });
          assert.equal(res.statusCode, 201, `${url}: ${res.body}`);
        }
        const ftp = await open.call('POST', '/v1/webhooks', { body: { url: 'ftp://127.0.0.1/' } });
        assert.deepEqual([ftp.statusCode, ftp.json().error], [400, 'url must be an http or https URL (got ftp)']);
      } finally {
        await open.close();
      }
    });

    it('asks for the key like every other route', async () => {
      const res = await t.call('POST', '/v1/webhooks', { key: null, body: { url: PUBLIC_URL } });
      assert.deepEqual([res.statusCode, res.json()], [401, { success: false, error: 'Invalid or missing API key' }]);
    });
  });

  describe('GET /v1/webhooks', () => {
    it('lists the workspace\'s endpoints newest first, the secret only masked', async () => {
      const ws = await t.newWorkspace();
      assert.deepEqual((await t.call('GET', '/v1/webhooks', { key: ws.apiKey })).json(), { success: true, data: [] });
      const first = await created(ws, { url: 'https://93.184.216.34/one', events: ['bounced'] });
      const second = await created(ws, { url: 'https://93.184.216.34/two' });
      const res = await t.call('GET', '/v1/webhooks', { key: ws.apiKey });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        success: true,
        data: [
          { id: second.id, url: second.url, events: ALL_EVENTS, masked_secret: masked(second.secret), created_at: second.created_at, updated_at: second.created_at },
          { id: first.id, url: first.url, events: ['bounced'], masked_secret: masked(first.secret), created_at: first.created_at, updated_at: first.created_at },
        ],
      });
      assert.ok(!res.body.includes(first.secret) && !res.body.includes(second.secret));
    });
  });

  describe('GET /v1/webhooks/{id}', () => {
    it('shows the endpoint and its deliveries, none yet', async () => {
      const ws = await t.newWorkspace();
      const hook = await created(ws);
      const res = await t.call('GET', `/v1/webhooks/${hook.id}`, { key: ws.apiKey });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        success: true,
        data: { id: hook.id, url: PUBLIC_URL, events: ALL_EVENTS, masked_secret: masked(hook.secret), created_at: hook.created_at, updated_at: hook.created_at, deliveries: [] },
      });
      assert.ok(!res.body.includes(hook.secret));
    });

    it('shows the 20 latest deliveries, newest first, with their state, attempts and last answer', async () => {
      const ws = await t.newWorkspace();
      const hook = await created(ws);
      const other = await created(ws);
      const rows = Array.from({ length: 25 }, (_, i) => ({}) as Record<string, unknown>);
      rows[23] = { event_type: 'bounced', state: 'failed', attempts: 4, last_status: 500, last_error: 'HTTP 500', updated_at: '2026-02-02T00:00:00.000Z' };
      rows[24] = { event_type: 'complained', state: 'pending', attempts: 0, last_status: null, last_error: null, lease_owner: 'dispatcher-1', lease_expires_at: '2026-01-01T00:10:00.000Z' };
      const ids = await seedDeliveries(ws, hook.id, rows);
      await seedDeliveries(ws, other.id, [{}, {}]);

      const { data } = (await t.call('GET', `/v1/webhooks/${hook.id}`, { key: ws.apiKey })).json();
      const deliveries: WebhookDeliveryView[] = data.deliveries;
      assert.equal(deliveries.length, 20);
      assert.deepEqual(deliveries.map((d) => d.id), ids.slice(5).reverse());
      assert.deepEqual(deliveries[0], {
        id: ids[24],
        event_id: `evt_${'24'.padStart(26, '0')}`,
        event_type: 'complained',
        state: 'pending',
        attempts: 0,
        last_status: null,
        last_error: null,
        created_at: '2026-01-01T00:00:24.000Z',
        updated_at: '2026-01-01T00:00:24.000Z',
      });
      assert.deepEqual(deliveries[1], {
        id: ids[23],
        event_id: `evt_${'23'.padStart(26, '0')}`,
        event_type: 'bounced',
        state: 'failed',
        attempts: 4,
        last_status: 500,
        last_error: 'HTTP 500',
        created_at: '2026-01-01T00:00:23.000Z',
        updated_at: '2026-02-02T00:00:00.000Z',
      });
      assert.deepEqual(deliveries[2]!.state, 'delivered');
      assert.equal((await t.call('GET', `/v1/webhooks/${other.id}`, { key: ws.apiKey })).json().data.deliveries.length, 2);
    });

    it('answers 404 Webhook not found for an unknown id', async () => {
      for (const id of ['wh_01jzzzzzzzzzzzzzzzzzzzzzzz', 'nope']) {
        const res = await t.call('GET', `/v1/webhooks/${id}`);
        assert.deepEqual([res.statusCode, res.json()], [404, NOT_FOUND]);
      }
    });
  });

  describe('DELETE /v1/webhooks/{id}', () => {
    it('deletes the endpoint and its deliveries: 200 {id, deleted: true}, then 404', async () => {
      const ws = await t.newWorkspace();
      const hook = await created(ws);
      const kept = await created(ws);
      await seedDeliveries(ws, hook.id, [{}, {}, {}]);
      const res = await t.call('DELETE', `/v1/webhooks/${hook.id}`, { key: ws.apiKey });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { success: true, data: { id: hook.id, deleted: true } });

      for (const [method, url] of [['GET', `/v1/webhooks/${hook.id}`], ['DELETE', `/v1/webhooks/${hook.id}`], ['POST', `/v1/webhooks/${hook.id}/rotate-secret`]] as const) {
        const gone = await t.call(method, url, { key: ws.apiKey });
        assert.deepEqual([gone.statusCode, gone.json()], [404, NOT_FOUND], `${method} ${url}`);
      }
      const left = await t.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', hook.id).execute();
      assert.deepEqual(left, [], 'its deliveries went with it');
      assert.deepEqual((await t.call('GET', '/v1/webhooks', { key: ws.apiKey })).json().data.map((w: WebhookView) => w.id), [kept.id]);
    });
  });

  describe('POST /v1/webhooks/{id}/rotate-secret', () => {
    it('answers {id, secret} with a new secret; the stored one is replaced and the old one signs nothing more', async () => {
      const ws = await t.newWorkspace();
      const hook = await created(ws);
      const before = await row(hook.id);
      const res = await t.call('POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key: ws.apiKey });
      assert.equal(res.statusCode, 200);
      const { data } = res.json();
      assert.deepEqual(Object.keys(data), ['id', 'secret']);
      assert.equal(data.id, hook.id);
      assert.match(data.secret, SECRET);
      assert.notEqual(data.secret, hook.secret);

      const after = await row(hook.id);
      assert.notEqual(after.secret, before.secret);
      assert.equal(webhookSigningSecret(after, t.config), data.secret, 'deliveries are signed with the new secret');
      assert.ok(after.updated_at >= before.updated_at);
      const shown = (await t.call('GET', `/v1/webhooks/${hook.id}`, { key: ws.apiKey })).json().data;
      assert.deepEqual([shown.masked_secret, shown.updated_at, shown.created_at], [masked(data.secret), after.updated_at, hook.created_at]);
    });

    it('answers 404 Webhook not found for an unknown id', async () => {
      const res = await t.call('POST', '/v1/webhooks/wh_01jzzzzzzzzzzzzzzzzzzzzzzz/rotate-secret');
      assert.deepEqual([res.statusCode, res.json()], [404, NOT_FOUND]);
    });
  });

  describe('POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry', () => {
    it('makes a failed delivery due now, pending and unleased, keeping its attempts, and answers it', async () => {
      const ws = await t.newWorkspace();
      const hook = await created(ws);
      const [failed, untouched] = await seedDeliveries(ws, hook.id, [
        { event_type: 'bounced', state: 'failed', attempts: 4, last_status: 503, last_error: 'HTTP 503', available_at: '2099-01-01T00:00:00.000Z' },
        { state: 'failed', attempts: 4, last_status: 500 },
      ]);
      const before = new Date().toISOString();
      const res = await t.call('POST', `/v1/webhooks/${hook.id}/deliveries/${failed}/retry`, { key: ws.apiKey });
      assert.equal(res.statusCode, 200);
      const { data } = res.json();
      assert.match(data.updated_at, ISO);
      assert.ok(data.updated_at >= before);
      assert.deepEqual(res.json(), {
        success: true,
        data: {
          id: failed,
          event_id: `evt_${'0'.padStart(26, '0')}`,
          event_type: 'bounced',
          state: 'pending',
          attempts: 4,
          last_status: 503,
          last_error: 'HTTP 503',
          created_at: '2026-01-01T00:00:00.000Z',
          updated_at: data.updated_at,
        },
      });
      const stored = await t.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', failed!).executeTakeFirstOrThrow();
      assert.deepEqual([stored.state, stored.available_at, stored.lease_owner, stored.lease_expires_at, Number(stored.attempts)], ['pending', data.updated_at, null, null, 4]);
      const other = await t.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', untouched!).executeTakeFirstOrThrow();
      assert.equal(other.state, 'failed', 'only that delivery');
      const shown = (await t.call('GET', `/v1/webhooks/${hook.id}`, { key: ws.apiKey })).json().data.deliveries;
      assert.deepEqual(shown.find((d: WebhookDeliveryView) => d.id === failed), data);
    });

    it('takes a leased or delivered delivery too: due now, lease cleared', async () => {
      const ws = await t.newWorkspace();
      const hook = await created(ws);
      const [leased, delivered] = await seedDeliveries(ws, hook.id, [
        { state: 'pending', attempts: 1, lease_owner: 'dispatcher-1', lease_expires_at: '2099-01-01T00:00:00.000Z', available_at: '2099-01-01T00:00:00.000Z' },
        { state: 'delivered', attempts: 1 },
      ]);
      for (const id of [leased!, delivered!]) {
        const res = await t.call('POST', `/v1/webhooks/${hook.id}/deliveries/${id}/retry`, { key: ws.apiKey });
        assert.deepEqual([res.statusCode, res.json().data.state, res.json().data.attempts], [200, 'pending', 1]);
        const stored = await t.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        assert.deepEqual([stored.lease_owner, stored.lease_expires_at, stored.available_at <= new Date().toISOString()], [null, null, true]);
      }
    });

    it('answers 404 Webhook delivery not found for a delivery that is not this endpoint\'s, and Webhook not found for an unknown endpoint', async () => {
      const ws = await t.newWorkspace();
      const hook = await created(ws);
      const sibling = await created(ws);
      const [ofSibling] = await seedDeliveries(ws, sibling.id, [{ state: 'failed' }]);
      for (const deliveryId of [ofSibling, 'whd_01jzzzzzzzzzzzzzzzzzzzzzzz']) {
        const res = await t.call('POST', `/v1/webhooks/${hook.id}/deliveries/${deliveryId}/retry`, { key: ws.apiKey });
        assert.deepEqual([res.statusCode, res.json()], [404, DELIVERY_NOT_FOUND]);
      }
      const stored = await t.db.selectFrom('webhook_deliveries').select('state').where('id', '=', ofSibling!).executeTakeFirstOrThrow();
      assert.equal(stored.state, 'failed', 'the sibling\'s delivery was not touched');
      const unknown = await t.call('POST', `/v1/webhooks/wh_01jzzzzzzzzzzzzzzzzzzzzzzz/deliveries/${ofSibling}/retry`, { key: ws.apiKey });
      assert.deepEqual([unknown.statusCode, unknown.json()], [404, NOT_FOUND]);
    });
  });

  describe('per workspace', () => {
    let a: Workspace;
    let b: Workspace;
    let hook: { id: string; secret: string };
    let deliveryId: string;
    before(async () => {
      a = await t.newWorkspace('A');
      b = await t.newWorkspace('B');
      hook = await created(a);
      [deliveryId] = (await seedDeliveries(a, hook.id, [{ state: 'failed', attempts: 4 }])) as [string];
    });

    it('shows B none of A\'s endpoints', async () => {
      assert.deepEqual((await t.call('GET', '/v1/webhooks', { key: b.apiKey })).json(), { success: true, data: [] });
      assert.equal((await t.call('GET', '/v1/webhooks', { key: a.apiKey })).json().data.length, 1);
    });

    const attempts: [string, string, () => string, typeof NOT_FOUND][] = [
      ['GET', '/v1/webhooks/{id}', () => `/v1/webhooks/${hook.id}`, NOT_FOUND],
      ['DELETE', '/v1/webhooks/{id}', () => `/v1/webhooks/${hook.id}`, NOT_FOUND],
      ['POST', '/v1/webhooks/{id}/rotate-secret', () => `/v1/webhooks/${hook.id}/rotate-secret`, NOT_FOUND],
      ['POST', '/v1/webhooks/{id}/deliveries/{delivery_id}/retry', () => `/v1/webhooks/${hook.id}/deliveries/${deliveryId}/retry`, NOT_FOUND],
    ];
    for (const [method, name, url, error] of attempts) {
      it(`${method} ${name} answers B 404 for A's endpoint and changes nothing`, async () => {
        const before = await row(hook.id);
        const res = await t.call(method, url(), { key: b.apiKey });
        assert.deepEqual([res.statusCode, res.json()], [404, error]);
        assert.deepEqual(await row(hook.id), before);
        const delivery = await t.db.selectFrom('webhook_deliveries').select(['state', 'attempts']).where('id', '=', deliveryId).executeTakeFirstOrThrow();
        assert.deepEqual([delivery.state, Number(delivery.attempts)], ['failed', 4]);
      });
    }

    it('answers B 404 when it names its own endpoint with A\'s delivery', async () => {
      const own = await created(b);
      const res = await t.call('POST', `/v1/webhooks/${own.id}/deliveries/${deliveryId}/retry`, { key: b.apiKey });
      assert.deepEqual([res.statusCode, res.json()], [404, DELIVERY_NOT_FOUND]);
    });
  });

  describe('secrets at rest and in logs', () => {
    it('stores it sealed under the data dir\'s key file when MAILROOM_SECRET_KEY is not set', async () => {
      const hook = await created(await t.newWorkspace());
      const stored = await row(hook.id);
      assert.match(stored.secret, /^enc:v1:[A-Za-z0-9+/]+=*$/);
      assert.ok(!stored.secret.includes(hook.secret.slice(6)));
      const fileKey = readFileSync(join(t.config.dataDir, 'secret.key'), 'utf8').trim();
      assert.equal(webhookSigningSecret(stored, { secretKey: loadConfig({ MAILROOM_SECRET_KEY: fileKey }).secretKey }), hook.secret);
    });

    it('stores it encrypted when MAILROOM_SECRET_KEY is set, at creation and at rotation, and the dispatcher reads it back', async () => {
      const sealed = await createTestApp({ MAILROOM_SECRET_KEY: randomBytes(32).toString('base64') });
      try {
        const hook = (await sealed.call('POST', '/v1/webhooks', { body: { url: PUBLIC_URL } })).json().data;
        const readRow = () => sealed.db.selectFrom('webhooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow();
        const stored = await readRow();
        assert.match(stored.secret, /^enc:v1:[A-Za-z0-9+/]+=*$/);
        assert.ok(!stored.secret.includes(hook.secret.slice(6)));
        assert.equal(webhookSigningSecret(stored, sealed.config), hook.secret);
        assert.equal((await sealed.call('GET', `/v1/webhooks/${hook.id}`)).json().data.masked_secret, masked(hook.secret));

        const rotated = (await sealed.call('POST', `/v1/webhooks/${hook.id}/rotate-secret`)).json().data;
        const after = await readRow();
        assert.match(after.secret, /^enc:v1:/);
        assert.notEqual(after.secret, stored.secret);
        assert.equal(webhookSigningSecret(after, sealed.config), rotated.secret);

        // Without the key, or with another, the stored secret cannot be read: a clear error, not a wrong signature.
        assert.throws(() => webhookSigningSecret(after, { secretKey: undefined }), /stored encrypted, but MAILROOM_SECRET_KEY is not set/);
        const otherKey = loadConfig({ MAILROOM_SECRET_KEY: 'f'.repeat(64) });
        assert.throws(() => webhookSigningSecret(after, otherKey), /could not be decrypted with MAILROOM_SECRET_KEY/);
        // A process with another key does not start on this store (secrets-at-rest.test.ts); a secret sealed under
        // another key all the same still leaves the endpoint listed, its secret shown as unreadable, and rotation mends it.
        await sealed.db.updateTable('webhooks').set({ secret: createSecretBox(otherKey.secretKey).seal(rotated.secret) }).where('id', '=', hook.id).execute();
        const shown = await sealed.call('GET', `/v1/webhooks/${hook.id}`);
        assert.deepEqual([shown.statusCode, shown.json().data.masked_secret], [200, null]);
        const mended = (await sealed.call('POST', `/v1/webhooks/${hook.id}/rotate-secret`)).json().data;
        assert.equal(webhookSigningSecret(await readRow(), sealed.config), mended.secret);
        assert.equal((await sealed.call('GET', '/v1/webhooks')).json().data[0].masked_secret, masked(mended.secret));
      } finally {
        await sealed.close();
      }
    });

    it('never writes a secret to the log, even at trace level', async () => {
      const lines: string[] = [];
      const app = await buildApp({ config: t.config, services: t.services, logger: { level: 'trace', stream: { write: (line: string) => void lines.push(line) } } });
      try {
        const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
          app.inject({ method, url, headers: { 'x-api-key': t.apiKey }, ...(payload ? { payload } : {}) });
        const hook = (await call('POST', '/v1/webhooks', { url: PUBLIC_URL })).json().data;
        const rotated = (await call('POST', `/v1/webhooks/${hook.id}/rotate-secret`)).json().data;
        await call('GET', `/v1/webhooks/${hook.id}`);
        await call('GET', '/v1/webhooks');
        await call('POST', '/v1/webhooks', { url: PUBLIC_URL, secret: 'whsec_c2VjcmV0' });
        assert.ok(lines.length > 0, 'something was logged');
        const log = lines.join('');
        for (const secret of [hook.secret, rotated.secret]) assert.ok(!log.includes(secret.slice(6)), 'secret in the log');
        assert.ok(!log.includes(t.apiKey), 'API key in the log');
      } finally {
        await app.close();
      }
    });
  });
});
