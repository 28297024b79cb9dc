import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_ATTEMPTS, DEFAULT_RETRY_BASE_MS, DEFAULT_RETRY_MAX_DELAY_MS, retryDelayMs } from '../src/delivery/retry-policy.js';

const policy = { baseMs: 1_000, maxDelayMs: 10_000, maxAttempts: 6 };

describe('retry policy', () => {
  it('doubles the delay per attempt up to the cap, between half and all of it', () => {
    const lowest = [1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, policy, () => 0));
    const highest = [1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, policy, () => 1));
    assert.deepEqual(lowest, [500, 1_000, 2_000, 4_000, 5_000]);
    assert.deepEqual(highest, [1_000, 2_000, 4_000, 8_000, 10_000]);
  });

  it('spreads retries at random within that range', () => {
    const delays = new Set(Array.from({ length: 50 }, () => retryDelayMs(3, policy)));
    assert.ok(delays.size > 10, 'jittered');
    for (const delay of delays) assert.ok(delay! >= 2_000 && delay! <= 4_000, `${delay}`);
  });

  it('gives up after the last attempt allowed', () => {
    assert.equal(retryDelayMs(6, policy), null);
    assert.equal(retryDelayMs(7, policy), null);
    assert.notEqual(retryDelayMs(5, policy), null);
  });

  it('keeps the defaults to a few hours of trying', () => {
    const defaults = { baseMs: DEFAULT_RETRY_BASE_MS, maxDelayMs: DEFAULT_RETRY_MAX_DELAY_MS, maxAttempts: DEFAULT_MAX_ATTEMPTS };
    let longest = 0;
    for (let attempt = 1; attempt < DEFAULT_MAX_ATTEMPTS; attempt++) longest += retryDelayMs(attempt, defaults, () => 1)!;
    assert.equal(longest, (1 + 2 + 4 + 8 + 16 + 32 + 60 + 60 + 60) * 60_000);
  });
});
