import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryRateLimiter, RATE_LIMIT_WINDOW_SECONDS } from '../src/lib/rate-limiter.js';

describe('memory rate limiter', () => {
  const start = Date.UTC(2026, 10, 27, 12, 0, 0, 400);
  const windowMs = RATE_LIMIT_WINDOW_SECONDS * 1000;

  it('counts fixed windows from a bucket\'s first request, refuses past the limit, and starts again when the window ends', () => {
    let now = start;
    const limiter = createMemoryRateLimiter(() => now);
    const first = limiter.consumeNow!('key:a:send', 3);
    assert.deepEqual(first, { allowed: true, limit: 3, remaining: 2, resetAt: Math.ceil((start + windowMs) / 1000) });
    now += 10_000;
    assert.deepEqual(limiter.consumeNow!('key:a:send', 3), { ...first, remaining: 1 });
    assert.deepEqual(limiter.consumeNow!('key:a:send', 3), { ...first, remaining: 0 });
    assert.deepEqual(limiter.consumeNow!('key:a:send', 3), { ...first, allowed: false, remaining: 0 });
    // Another bucket, and the same bucket under another limit, count on their own.
    assert.equal(limiter.consumeNow!('key:b:send', 3).remaining, 2);
    assert.equal(limiter.consumeNow!('key:a:send', 10).remaining, 9);
    now = start + windowMs - 1;
    assert.equal(limiter.consumeNow!('key:a:send', 3).allowed, false, 'still the first window');
    now = start + windowMs;
    assert.deepEqual(limiter.consumeNow!('key:a:send', 3), { allowed: true, limit: 3, remaining: 2, resetAt: Math.ceil((now + windowMs) / 1000) });
  });

  it('answers the same through the promise', async () => {
    let now = start;
    const limiter = createMemoryRateLimiter(() => now);
    assert.deepEqual(await limiter.consume('ip:127.0.0.1', 1), { allowed: true, limit: 1, remaining: 0, resetAt: Math.ceil((start + windowMs) / 1000) });
    now += 1;
    assert.equal((await limiter.consume('ip:127.0.0.1', 1)).allowed, false);
  });

  it('takes several points only when they all fit, counting none of a refused take, and gives them back within the window', async () => {
    let now = start;
    const limiter = createMemoryRateLimiter(() => now);
    const bucket = 'workspace:w:recipients';
    const resetAt = Math.ceil((start + windowMs) / 1000);
    assert.deepEqual(await limiter.take(bucket, 10, 7), { allowed: true, limit: 10, remaining: 3, resetAt });
    now += 1_000;
    assert.deepEqual(await limiter.take(bucket, 10, 4), { allowed: false, limit: 10, remaining: 3, resetAt });
    assert.deepEqual(await limiter.take(bucket, 10, 3), { allowed: true, limit: 10, remaining: 0, resetAt });
    await limiter.giveBack(bucket, 10, 5);
    assert.deepEqual(await limiter.take(bucket, 10, 5), { allowed: true, limit: 10, remaining: 0, resetAt });
    // A give-back after its window ended changes nothing: the new window starts whole.
    now = start + windowMs;
    await limiter.giveBack(bucket, 10, 5);
    assert.deepEqual(await limiter.take(bucket, 10, 10), { allowed: true, limit: 10, remaining: 0, resetAt: Math.ceil((now + windowMs) / 1000) });
    assert.equal((await limiter.take(bucket, 10, 1)).allowed, false);
  });

  it('counts a window of another length apart, and takes back a refunded request only within its window', async () => {
    let now = start;
    const limiter = createMemoryRateLimiter(() => now);
    const quarterHour = 15 * 60;
    assert.deepEqual(await limiter.consume('sign-in:192.0.2.1', 2, quarterHour), { allowed: true, limit: 2, remaining: 1, resetAt: Math.ceil((start + quarterHour * 1000) / 1000) });
    assert.equal((await limiter.consume('sign-in:192.0.2.1', 2)).remaining, 1, 'the one-minute window of the same bucket and limit is another');
    await limiter.refund('sign-in:192.0.2.1', 2, quarterHour);
    assert.equal((await limiter.consume('sign-in:192.0.2.1', 2, quarterHour)).remaining, 1, 'the refunded request no longer counts');
    assert.equal((await limiter.consume('sign-in:192.0.2.1', 2, quarterHour)).allowed, true);
    assert.equal((await limiter.consume('sign-in:192.0.2.1', 2, quarterHour)).allowed, false);
    now = start + windowMs;
    assert.equal((await limiter.consume('sign-in:192.0.2.1', 2, quarterHour)).allowed, false, 'a minute on, the quarter hour still runs');
    now = start + quarterHour * 1000;
    await limiter.refund('sign-in:192.0.2.1', 2, quarterHour);
    assert.equal((await limiter.consume('sign-in:192.0.2.1', 2, quarterHour)).remaining, 1, 'a refund after the window ended gives the next one nothing extra');
  });

  it('forgets the windows of buckets that stopped, so memory does not grow with every client address ever seen', () => {
    let now = start;
    const limiter = createMemoryRateLimiter(() => now);
    for (let i = 0; i < 1000; i++) limiter.consumeNow!(`ip:10.0.${i >> 8}.${i & 255}`, 60);
    limiter.consumeNow!('key:a:other', 100);
    assert.equal(limiter.windowsHeld(), 1001);
    now += windowMs / 2;
    limiter.consumeNow!('key:b:other', 100);
    assert.equal(limiter.windowsHeld(), 1002, 'nothing has ended yet');
    now = start + windowMs;
    limiter.consumeNow!('key:b:other', 100);
    assert.equal(limiter.windowsHeld(), 1, 'only the bucket whose window is still open is left');
    // A bucket seen again after the sweep starts a fresh window.
    assert.equal(limiter.consumeNow!('ip:10.0.0.0', 60).remaining, 59);
  });
});
