/**
 * Scoped API keys (issue 15, point 9): `permission` full_access | sending_access,
 * an optional `domain_id` for a sending key, and the last full_access key kept
 * through /v1. Everything through the real app, on the store of the run.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import * as scopesMigration from '../src/db/migrations/0016-api-key-scopes.js';
import { secretHash } from '../src/lib/secret-token.js';
import { SANDBOX_SENDER_DOMAIN } from '../src/domains/sender-domain.js';
import { OPENAPI_PATH } from '../src/openapi/register.js';
import { SES_EVENTS_PATH } from '../src/ses-events/index.js';
import { dashboardRequest, dashboardSignIn } from './helpers/dashboard-client.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { routesOf } from './helpers/routes.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { addVerifiedDomain } from './helpers/verified-domain.js';

const SENDING_ONLY = { success: false, error: 'This API key can only send e-mail' };
const LAST_FULL_ACCESS = "The workspace's last full_access API key cannot be deleted through the API; create another full_access key first";

const message = (from: string) => ({ from_email: from, to: ['someone@example.com'], subject: 'Hi', text: 'Hello' });

describe('scoped API keys', () => {
  let dns: TestDnsServer;
  let t: TestApp;
  let own: { id: string };
  let other: { id: string };
  before(async () => {
    dns = await startDnsServer();
    t = await createTestApp({ DNS_SERVERS: dns.address, RATE_LIMIT_OTHER_PER_MIN: '100000', RATE_LIMIT_SEND_PER_MIN: '100000' });
    own = await addVerifiedDomain(t, dns, 'own.example');
    other = await addVerifiedDomain(t, dns, 'other.example');
  });
  after(async () => {
    await t.close();
    await dns.close();
  });

  const createKey = (body: Record<string, unknown>, key?: string) => t.call('POST', '/v1/api-keys', { key, body: { name: 'scoped', ...body } });

  it('makes full_access keys by default and lists permission and domain_id for every key', async () => {
    const plain = await createKey({});
    assert.equal(plain.statusCode, 201, plain.body);
    assert.equal(plain.json().data.permission, 'full_access');
    assert.equal(plain.json().data.domain_id, null);
    const sending = (await createKey({ permission: 'sending_access', domain_id: own.id })).json().data;
    assert.deepEqual([sending.permission, sending.domain_id], ['sending_access', own.id]);

    const listed = (await t.call('GET', '/v1/api-keys')).json().data as Array<Record<string, unknown>>;
    for (const row of listed) assert.ok('permission' in row && 'domain_id' in row, JSON.stringify(row));
    assert.deepEqual(
      listed.filter((k) => k.id === sending.id || k.id === plain.json().data.id).map((k) => [k.permission, k.domain_id]),
      [
        ['sending_access', own.id],
        ['full_access', null],
      ],
    );
  });

  it('lets a sending key send, and answers 403 with one sentence on every other route the app has', async () => {
    const { key } = (await createKey({ permission: 'sending_access' })).json().data;
    const sent = await t.call('POST', '/v1/send', { key, body: message(`hello@${SANDBOX_SENDER_DOMAIN}`) });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.equal(sent.json().data.status, 'sent');
    const fromOwn = await t.call('POST', '/v1/send', { key, body: message('hello@own.example') });
    assert.equal(fromOwn.statusCode, 200, 'an unrestricted sending key sends from any verified domain');

    // Every method and path the app routes, so that a route added later is covered; the document, the health check and SNS's endpoint need no key.
    const routes = routesOf(t.app);
    const sendingRoutes = ['POST /v1/send', 'POST /v1/send/batch'];
    const others = routes.filter(([method, path]) => path.startsWith('/v1/') && method !== 'HEAD' && path !== '/v1/health/check' && path !== OPENAPI_PATH && path !== SES_EVENTS_PATH && !sendingRoutes.includes(`${method} ${path}`));
    assert.ok(others.length >= 15, `routes found: ${JSON.stringify(others)}`);
    for (const [method, path] of others) {
      const url = path.replace(/:[a-z_]+/gi, 'x');
      const res = await t.call(method, url, { key, body: ['POST', 'PATCH', 'PUT'].includes(method) ? {} : undefined });
      assert.deepEqual([res.statusCode, res.json()], [403, SENDING_ONLY], `${method} ${url}`);
    }
    assert.equal((await t.call('GET', '/v1/health/check', { key })).statusCode, 200);
    // The batch route is a sending route too, once the app has it.
    if (routes.some(([method, path]) => method === 'POST' && path === '/v1/send/batch')) {
      const batch = await t.call('POST', '/v1/send/batch', { key, body: [] });
      assert.notDeepEqual(batch.json(), SENDING_ONLY);
    }
  });

  it('restricts a sending key with domain_id to that domain, case-insensitively', async () => {
    const { key } = (await createKey({ permission: 'sending_access', domain_id: own.id })).json().data;
    const accepted = await t.call('POST', '/v1/send', { key, body: message('Team <hello@OWN.example>') });
    assert.equal(accepted.statusCode, 200, accepted.body);
    assert.equal(accepted.json().data.status, 'sent');
    for (const from of ['hello@other.example', `hello@${SANDBOX_SENDER_DOMAIN}`, 'hello@unknown.example']) {
      const refused = await t.call('POST', '/v1/send', { key, body: message(from) });
      assert.deepEqual([refused.statusCode, refused.json()], [403, { success: false, error: 'This API key can only send from own.example' }], from);
    }
    const logs = (await t.call('GET', '/v1/send/logs?limit=100')).json().data as Array<{ from_email: string }>;
    assert.ok(!logs.some((l) => l.from_email === 'hello@other.example'), 'a refused send records nothing');
  });

  it('refuses every send of a key whose domain was deleted, rather than widening it', async () => {
    const doomed = await addVerifiedDomain(t, dns, 'doomed.example');
    const { key } = (await createKey({ permission: 'sending_access', domain_id: doomed.id })).json().data;
    assert.equal((await t.call('DELETE', `/v1/domains/${doomed.id}`)).statusCode, 200);
    const refused = await t.call('POST', '/v1/send', { key, body: message('hello@other.example') });
    assert.deepEqual([refused.statusCode, refused.json().error], [403, 'This API key can only send from a domain that has been deleted']);
  });

  it('refuses a bad permission, a misspelt field, and a domain_id that is not this workspace’s or not for a sending key', async () => {
    const foreign = await t.newWorkspace();
    const foreignDomain = (await t.call('POST', '/v1/domains', { key: foreign.apiKey, body: { domain: 'foreign.example' } })).json().data;
    const cases: [Record<string, unknown>, string][] = [
      [{ permission: 'admin' }, 'permission must be one of full_access, sending_access'],
      [{ permission: 42 }, 'permission must be a string'],
      [{ permision: 'sending_access' }, 'permision is not a supported field'],
      [{ permission: 'sending_access', domain_id: foreignDomain.id }, 'domain_id is not a domain of this workspace'],
      [{ permission: 'sending_access', domain_id: 'dom_unknown' }, 'domain_id is not a domain of this workspace'],
      [{ permission: 'sending_access', domain_id: 'dom_\u0000' }, 'domain_id is not a domain of this workspace'],
      [{ domain_id: own.id }, 'domain_id can only restrict a sending_access key'],
      [{ permission: 'full_access', domain_id: other.id }, 'domain_id can only restrict a sending_access key'],
    ];
    const before = (await t.call('GET', '/v1/api-keys')).json().data.length;
    for (const [body, error] of cases) {
      const res = await createKey(body);
      assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error }], JSON.stringify(body));
    }
    assert.equal((await t.call('GET', '/v1/api-keys')).json().data.length, before, 'nothing created');
  });

  it("keeps a workspace's last full_access key through /v1 (409), while sending keys and other full keys delete", async () => {
    const ws = await t.newWorkspace('Last key');
    const [first] = (await t.call('GET', '/v1/api-keys', { key: ws.apiKey })).json().data as Array<{ id: string }>;
    const sending = (await createKey({ permission: 'sending_access' }, ws.apiKey)).json().data;
    assert.equal((await t.call('DELETE', `/v1/api-keys/${sending.id}`, { key: ws.apiKey })).statusCode, 200, 'a sending key deletes');

    const kept = await t.call('DELETE', `/v1/api-keys/${first!.id}`, { key: ws.apiKey });
    assert.deepEqual([kept.statusCode, kept.json()], [409, { success: false, error: LAST_FULL_ACCESS }]);
    assert.equal((await t.call('GET', '/v1/api-keys', { key: ws.apiKey })).statusCode, 200, 'the key still works');

    // With a second full_access key, the first deletes, even with itself (as before scopes).
    const second = (await createKey({ name: 'second' }, ws.apiKey)).json().data;
    assert.equal((await t.call('DELETE', `/v1/api-keys/${first!.id}`, { key: ws.apiKey })).statusCode, 200);
    const last = await t.call('DELETE', `/v1/api-keys/${second.id}`, { key: second.key });
    assert.deepEqual([last.statusCode, last.json().error], [409, LAST_FULL_ACCESS]);
  });

  it("lets the dashboard create scoped keys and delete the workspace's last full_access key", async () => {
    const ws = await t.newWorkspace('Dashboard keys');
    await t.services.users.create({ email: 'keys-admin@example.com', password: 'correct horse 7', workspaceId: ws.workspaceId, role: 'admin' });
    const session = await dashboardSignIn(t, 'keys-admin@example.com', 'correct horse 7');
    const path = `/workspaces/${ws.workspaceId}/api-keys`;
    const created = await dashboardRequest(t, 'POST', path, { ...session, body: { name: 'CI', permission: 'sending_access' } });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().data.permission, 'sending_access');
    const listed = (await dashboardRequest(t, 'GET', path, session)).json().data as Array<{ id: string; permission: string }>;
    const full = listed.find((k) => k.permission === 'full_access')!;
    const deleted = await dashboardRequest(t, 'DELETE', `${path}/${full.id}`, session);
    assert.equal(deleted.statusCode, 200, deleted.body);
    const after = await t.call('POST', '/v1/api-keys', { key: created.json().data.key, body: { name: 'x' } });
    assert.deepEqual([after.statusCode, after.json()], [403, SENDING_ONLY], 'the sending key left cannot make itself a full one');
  });
});

describe('keys made before scoped keys', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('are full_access after the migration', async () => {
    // Undo the migration, store a key as the code before it did, and apply the migration again.
    const db = t.db as unknown as Kysely<unknown>;
    await scopesMigration.down(db);
    const key = `mr_${randomBytes(32).toString('base64url')}`;
    await sql`insert into api_keys (id, workspace_id, name, lookup_id, key_hash, masked_key, created_at, last_used_at)
      values ('key_legacy', ${t.workspaceId}, 'legacy', ${key.slice(3, 15)}, ${secretHash(key)}, 'mr_xxxx********xxxx', ${new Date().toISOString()}, null)`.execute(db);
    await scopesMigration.up(db);

    const listed = await t.call('GET', '/v1/api-keys', { key });
    assert.equal(listed.statusCode, 200, listed.body);
    const rows = listed.json().data as Array<{ id: string; permission: string; domain_id: string | null }>;
    assert.equal(rows.length, 2);
    for (const row of rows) assert.deepEqual([row.permission, row.domain_id], ['full_access', null], row.id);
    assert.equal((await t.call('GET', '/v1/domains', { key })).statusCode, 200, 'the legacy key reaches every route');
  });
});
