import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { deleteRedisKeys, freshRedisPrefix, TEST_REDIS_URL } from './helpers/test-store.js';

const LIMITED = { success: false, error: 'Rate limit exceeded' };

function limitHeaders(res: { headers: Record<string, unknown> }) {
  return {
    limit: Number(res.headers['x-ratelimit-limit']),
    remaining: Number(res.headers['x-ratelimit-remaining']),
    reset: Number(res.headers['x-ratelimit-reset']),
  };
}

// Default limits, as SPEC.md §8.1 states them: every test gets a fresh app and fresh counters,
// kept in this process's memory and, when the run has Redis, again in Redis under a prefix of its own.
for (const counters of TEST_REDIS_URL ? (['memory', 'redis'] as const) : (['memory'] as const)) {
  describe(`rate limits (counters in ${counters})`, () => {
    let t: TestApp;
    let prefix: string;
    const countersEnv = (): Record<string, string> => (counters === 'redis' ? { REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix } : {});
    beforeEach(async () => {
      prefix = freshRedisPrefix();
      t = await createTestApp(countersEnv());
    });
    afterEach(async () => {
      await t.close();
      if (counters === 'redis') await deleteRedisKeys(prefix);
    });

    it('lets 30 sends per minute through per key and answers the 31st with 429', async () => {
      // The window opens with the first request: its end lies one minute after, in Unix seconds.
      let windowEnd: { earliest: number; latest: number } | undefined;
      for (let i = 1; i <= 30; i++) {
        const sentAt = Date.now();
        const res = await t.call('POST', '/v1/send', { body: sendBody() });
        windowEnd ??= { earliest: Math.floor(sentAt / 1000) + 60, latest: Math.ceil(Date.now() / 1000) + 60 };
        assert.equal(res.statusCode, 200, `request ${i}`);
        const headers = limitHeaders(res);
        assert.equal(headers.limit, 30);
        assert.equal(headers.remaining, 30 - i);
        assert.ok(headers.reset >= windowEnd.earliest && headers.reset <= windowEnd.latest, `reset ${headers.reset} of request ${i}`);
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

    it('counts requests without a valid key from IPv6 clients by their /64', async () => {
      const from = (address: string, i: number) => t.app.inject({ method: 'GET', url: '/v1/domains', remoteAddress: address, headers: { 'x-api-key': `mr_guess${i}` } });
      for (let i = 1; i <= 60; i++) assert.equal((await from(`2001:db8:5:5::${i.toString(16)}`, i)).statusCode, 401, `request ${i}`);
      assert.equal((await from('2001:db8:5:5:ffff:ffff:ffff:ffff', 61)).statusCode, 429, 'another address of the same /64');
      assert.equal((await from('2001:db8:5:6::1', 62)).statusCode, 401, 'the next /64 has a budget of its own');
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

    it('holds one budget per key across apps that share the store and the counters', async () => {
      // In memory each process counts alone, which is why several processes need Redis.
      const other = await createTestApp(countersEnv(), { shareStoreWith: t });
      try {
        for (let i = 0; i < 30; i++) {
          const res = await (i % 2 ? other : t).call('POST', '/v1/send', { key: t.apiKey, body: sendBody() });
          assert.equal(res.statusCode, 200, `request ${i + 1}`);
        }
        const limited = await other.call('POST', '/v1/send', { key: t.apiKey, body: sendBody() });
        assert.equal(limited.statusCode, counters === 'redis' ? 429 : 200);
      } finally {
        await other.close();
      }
    });
  });
}
