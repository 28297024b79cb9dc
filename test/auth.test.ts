import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestApp, sendBody, writtenRows, type TestApp } from './helpers/test-app.js';

const UNAUTHORIZED = { success: false, error: 'Invalid or missing API key' };

describe('authentication', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_OTHER_PER_MIN: '100000' });
  });
  after(() => t.close());

  const protectedRoutes: [string, string][] = [
    ['POST', '/v1/send'],
    ['GET', '/v1/send/logs'],
    ['GET', '/v1/send/stats'],
    ['GET', '/v1/domains'],
    ['POST', '/v1/domains'],
    ['GET', '/v1/domains/dom_x'],
    ['DELETE', '/v1/domains/dom_x'],
    ['POST', '/v1/domains/dom_x/verify'],
    ['GET', '/v1/api-keys'],
    ['POST', '/v1/api-keys'],
    ['DELETE', '/v1/api-keys/key_x'],
  ];
  for (const [method, url] of protectedRoutes) {
    it(`${method} ${url} answers 401 without a key and with a wrong key`, async () => {
      for (const key of [null, '', 'mr_wrong', 'x'.repeat(500)]) {
        const res = await t.call(method, url, { key, body: method === 'POST' ? {} : undefined });
        assert.equal(res.statusCode, 401, `key ${JSON.stringify(key)}`);
        assert.deepEqual(res.json(), UNAUTHORIZED);
      }
    });
  }

  it('lets the health check through without a key and without the envelope', async () => {
    const res = await t.call('GET', '/v1/health/check', { key: null });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  it('keeps several active keys per workspace, each reading the same workspace', async () => {
    const created = await t.call('POST', '/v1/api-keys', { body: { name: 'rotation' } });
    assert.equal(created.statusCode, 201);
    const second = created.json().data.key as string;
    await t.call('POST', '/v1/domains', { body: { domain: 'shared.example' } });
    for (const key of [t.apiKey, second]) {
      const res = await t.call('GET', '/v1/domains', { key });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json().data.map((d: { domain: string }) => d.domain), ['shared.example']);
    }
  });

  it('refuses a deleted key at once, the other keys keep working', async () => {
    const created = (await t.call('POST', '/v1/api-keys', { body: { name: 'compromised' } })).json().data;
    assert.equal((await t.call('GET', '/v1/send/stats', { key: created.key })).statusCode, 200);
    const deleted = await t.call('DELETE', `/v1/api-keys/${created.id}`);
    assert.equal(deleted.statusCode, 200);
    assert.deepEqual(deleted.json(), { success: true, data: { id: created.id, deleted: true } });
    const refused = await t.call('GET', '/v1/send/stats', { key: created.key });
    assert.equal(refused.statusCode, 401);
    assert.deepEqual(refused.json(), UNAUTHORIZED);
    const send = await t.call('POST', '/v1/send', { key: created.key, body: sendBody() });
    assert.deepEqual([send.statusCode, send.json()], [401, UNAUTHORIZED]);
    assert.equal((await t.call('GET', '/v1/send/stats')).statusCode, 200);
    const again = await t.call('DELETE', `/v1/api-keys/${created.id}`);
    assert.equal(again.statusCode, 404);
    assert.deepEqual(again.json(), { success: false, error: 'API key not found' });
  });

  // The send routes may take a key from memory (src/api-keys/api-key-service.ts, on src/lib/recent-cache.ts): the write checks it again.
  it('writes no send made with a key deleted by another process, though this one remembers the key', async () => {
    const created = (await t.call('POST', '/v1/api-keys', { body: { name: 'deleted elsewhere' } })).json().data;
    const first = await t.call('POST', '/v1/send', { key: created.key, body: sendBody() });
    assert.equal(first.json().data.status, 'sent');
    // Deleted in the store, as the CLI or another serve would: this process is not told.
    assert.equal(await t.store.apiKeys.delete(t.workspaceId, created.id), true);
    const before = await writtenRows(t.db);
    for (const [url, body] of [['/v1/send', sendBody()], ['/v1/send/batch', [sendBody(), sendBody({ to: ['b@example.com'] })]]] as const) {
      const refused = await t.call('POST', url, { key: created.key, body });
      assert.deepEqual([refused.statusCode, refused.json()], [401, UNAUTHORIZED], url);
    }
    assert.deepEqual(await writtenRows(t.db), before, 'nothing of the refused sends was written');
    const other = await t.call('POST', '/v1/send', { body: sendBody() });
    assert.equal(other.json().data.status, 'sent', 'the other keys keep sending');
  });

  it('stores only a SHA-256 hash of each key, and lists keys masked', async () => {
    const created = (await t.call('POST', '/v1/api-keys', { body: { name: 'hashed' } })).json().data;
    assert.match(created.key, /^mr_[A-Za-z0-9_-]{43}$/);
    assert.equal(created.masked_key, `${created.key.slice(0, 7)}********${created.key.slice(-4)}`);
    const row = await t.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    assert.equal(row.key_hash, createHash('sha256').update(created.key).digest('hex'));
    assert.equal(row.lookup_id, created.key.slice(3, 15));
    assert.ok(!Object.values(row).includes(created.key), 'the full key is stored nowhere in the row');

    const list = await t.call('GET', '/v1/api-keys');
    const listed = list.json().data.find((k: { id: string }) => k.id === created.id);
    assert.deepEqual(Object.keys(listed).sort(), ['created_at', 'domain_id', 'id', 'last_used_at', 'masked_key', 'name', 'permission']);
    assert.equal(listed.masked_key, created.masked_key);
    assert.ok(!list.body.includes(created.key));
  });

  it('refuses a key whose public part is right but whose secret part is not', async () => {
    const created = (await t.call('POST', '/v1/api-keys', { body: { name: 'forged' } })).json().data;
    const last = created.key.at(-1) === 'A' ? 'B' : 'A';
    for (const forged of [`${created.key.slice(0, -1)}${last}`, `${created.key.slice(0, 15)}${'x'.repeat(31)}`]) {
      const res = await t.call('GET', '/v1/send/stats', { key: forged });
      assert.equal(res.statusCode, 401);
      assert.deepEqual(res.json(), UNAUTHORIZED);
    }
    assert.equal((await t.call('GET', '/v1/send/stats', { key: created.key })).statusCode, 200);
  });

  // The send routes' guard answers a key read lately without a promise (api-key-service.ts, authenticateRemembered).
  it('refuses a forged key on the send route while the real one is remembered, and says who a remembered key is', async () => {
    const created = (await t.call('POST', '/v1/api-keys', { body: { name: 'remembered' } })).json().data;
    assert.equal(t.services.apiKeys.authenticateRemembered(created.key), undefined, 'not read yet: nothing to answer at once');
    for (let i = 0; i < 2; i++) assert.equal((await t.call('POST', '/v1/send', { key: created.key, body: sendBody() })).json().data.status, 'sent');
    assert.deepEqual(t.services.apiKeys.authenticateRemembered(created.key), { keyId: created.id, workspaceId: t.workspaceId, permission: 'full_access', domainId: null });
    const last = created.key.at(-1) === 'A' ? 'B' : 'A';
    const forged = `${created.key.slice(0, -1)}${last}`;
    assert.equal(t.services.apiKeys.authenticateRemembered(forged), undefined);
    const before = await writtenRows(t.db);
    const refused = await t.call('POST', '/v1/send', { key: forged, body: sendBody() });
    assert.deepEqual([refused.statusCode, refused.json()], [401, UNAUTHORIZED]);
    assert.deepEqual(await writtenRows(t.db), before);
    assert.equal((await t.call('DELETE', `/v1/api-keys/${created.id}`)).statusCode, 200);
    assert.equal(t.services.apiKeys.authenticateRemembered(created.key), undefined, 'a key deleted here is forgotten at once');
  });

  it('records when a key was last used', async () => {
    const created = (await t.call('POST', '/v1/api-keys', { body: { name: 'usage' } })).json().data;
    const listedBefore = (await t.call('GET', '/v1/api-keys')).json().data.find((k: { id: string }) => k.id === created.id);
    assert.equal(listedBefore.last_used_at, null);
    await t.call('GET', '/v1/send/stats', { key: created.key });
    const listedAfter = (await t.call('GET', '/v1/api-keys')).json().data.find((k: { id: string }) => k.id === created.id);
    assert.match(listedAfter.last_used_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('validates key names', async () => {
    const cases: [unknown, string][] = [
      [{}, 'name is required'],
      [{ name: 7 }, 'name must be a string'],
      [{ name: '  ' }, 'name must not be empty'],
      [{ name: 'x'.repeat(101) }, 'name must be at most 100 characters long'],
      // A NUL was a 500 on PostgreSQL, whose text cannot hold one.
      [{ name: 'ci\u0000key' }, 'name must not contain line breaks or control characters'],
    ];
    for (const [body, error] of cases) {
      const res = await t.call('POST', '/v1/api-keys', { body });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { success: false, error });
    }
  });
});
