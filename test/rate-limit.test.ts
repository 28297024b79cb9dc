import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';

const LIMITED = { success: false, error: 'Rate limit exceeded' };

function limitHeaders(res: { headers: Record<string, unknown> }) {
  return {
    limit: Number(res.headers['x-ratelimit-limit']),
    remaining: Number(res.headers['x-ratelimit-remaining']),
    reset: Number(res.headers['x-ratelimit-reset']),
  };
}

// Default limits, as SPEC.md §8.1 states them: every test gets a fresh app and fresh counters.
describe('rate limits', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(() => t.close());

  it('lets 30 sends per minute through per key and answers the 31st with 429', async () => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    for (let i = 1; i <= 30; i++) {
      const res = await t.call('POST', '/v1/send', { body: sendBody() });
      assert.equal(res.statusCode, 200, `request ${i}`);
      const headers = limitHeaders(res);
      assert.equal(headers.limit, 30);
      assert.equal(headers.remaining, 30 - i);
      // Unix seconds, within the one-minute window.
      assert.ok(headers.reset > nowSeconds && headers.reset <= nowSeconds + 61, `reset ${headers.reset}`);
    }
    const before = await t.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const limited = await t.call('POST', '/v1/send', { body: sendBody() });
    assert.equal(limited.statusCode, 429);
    assert.deepEqual(limited.json(), LIMITED);
    assert.equal(limitHeaders(limited).remaining, 0);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    const afterLimit = await t.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(afterLimit.n), Number(before.n), 'a limited send writes nothing');
  });

  it('lets 60 other requests per minute through per key and answers the 61st with 429', async () => {
    for (let i = 1; i <= 60; i++) {
      const res = await t.call('GET', i % 2 ? '/v1/send/stats' : '/v1/send/logs');
      assert.equal(res.statusCode, 200, `request ${i}`);
      assert.deepEqual([limitHeaders(res).limit, limitHeaders(res).remaining], [60, 60 - i]);
    }
    const limited = await t.call('GET', '/v1/domains');
    assert.equal(limited.statusCode, 429);
    assert.deepEqual(limited.json(), LIMITED);
  });

  it('keeps the send budget and the other budget apart', async () => {
    for (let i = 0; i < 30; i++) await t.call('POST', '/v1/send', { body: sendBody() });
    assert.equal((await t.call('POST', '/v1/send', { body: sendBody() })).statusCode, 429);
    const other = await t.call('GET', '/v1/send/stats');
    assert.equal(other.statusCode, 200);
    assert.deepEqual([limitHeaders(other).limit, limitHeaders(other).remaining], [60, 59]);
  });

  it('counts each key on its own, even within one workspace', async () => {
    const second = (await t.call('POST', '/v1/api-keys', { body: { name: 'second' } })).json().data.key;
    for (let i = 0; i < 30; i++) await t.call('POST', '/v1/send', { body: sendBody() });
    assert.equal((await t.call('POST', '/v1/send', { body: sendBody() })).statusCode, 429);
    const res = await t.call('POST', '/v1/send', { key: second, body: sendBody() });
    assert.equal(res.statusCode, 200);
    assert.equal(limitHeaders(res).remaining, 29);
  });

  it('limits requests without a valid key per client address, then answers 429 instead of 401', async () => {
    for (let i = 1; i <= 60; i++) {
      const res = await t.call('GET', '/v1/domains', { key: `mr_guess${i}` });
      assert.equal(res.statusCode, 401, `request ${i}`);
      assert.deepEqual([limitHeaders(res).limit, limitHeaders(res).remaining], [60, 60 - i]);
    }
    const limited = await t.call('GET', '/v1/domains', { key: 'mr_guess61' });
    assert.equal(limited.statusCode, 429);
    assert.deepEqual(limited.json(), LIMITED);
    // Valid keys have their own budget and are not punished for the guesser.
    assert.equal((await t.call('GET', '/v1/domains')).statusCode, 200);
  });

  it('puts the headers on every /v1 response, errors included, but not on the health check', async () => {
    const responses = [
      await t.call('GET', '/v1/send/stats'),
      await t.call('POST', '/v1/send', { body: {} }),
      await t.call('GET', '/v1/domains/dom_missing'),
      await t.call('GET', '/v1/no-such-route'),
      await t.call('GET', '/v1/send/stats', { key: null }),
    ];
    for (const res of responses) {
      assert.ok(res.headers['x-ratelimit-limit'] && res.headers['x-ratelimit-remaining'] && res.headers['x-ratelimit-reset'], `${res.statusCode}`);
    }
    const health = await t.call('GET', '/v1/health/check', { key: null });
    assert.equal(health.headers['x-ratelimit-limit'], undefined);
    assert.equal(health.headers['x-ratelimit-remaining'], undefined);
    assert.equal(health.headers['x-ratelimit-reset'], undefined);
  });
});
