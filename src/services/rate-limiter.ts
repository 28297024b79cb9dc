import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ServiceUnavailableError } from '../errors.js';

/** DESIGN.md fixes one-minute windows; only the number of requests per window is configurable. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;
/** What a client is told to wait when the counters' store (Redis) does not answer. */
export const RETRY_AFTER_COUNTERS_DOWN_SECONDS = 5;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix time, in seconds, at which the current window ends. */
  resetAt: number;
}

export interface RateLimiter {
  /** Counts a request in `bucket`'s window (RATE_LIMIT_WINDOW_SECONDS unless `windowSeconds` says otherwise). */
  consume(bucket: string, limit: number, windowSeconds?: number): Promise<RateLimitDecision>;
  /** The same at once, where the counters are in this process (no promise on every request's path). */
  consumeNow?(bucket: string, limit: number): RateLimitDecision;
  /** Takes back one request counted in the bucket's current window (one that turned out not to count, such as a sign-in that succeeded). */
  refund(bucket: string, limit: number, windowSeconds?: number): Promise<void>;
}

/** rate-limiter-flexible keeps one limiter per points-per-window; ours are made on first use of each limit and window. */
function createRateLimiter(make: (limit: number, windowSeconds: number) => RateLimiterAbstract): RateLimiter {
  const byRule = new Map<string, RateLimiterAbstract>();
  const limiterFor = (limit: number, windowSeconds: number) => {
    const rule = `${limit}/${windowSeconds}`;
    let limiter = byRule.get(rule);
    if (!limiter) {
      limiter = make(limit, windowSeconds);
      byRule.set(rule, limiter);
    }
    return limiter;
  };

  return {
    async consume(bucket, limit, windowSeconds = RATE_LIMIT_WINDOW_SECONDS) {
      let result: RateLimiterRes;
      let allowed = true;
      try {
        result = await limiterFor(limit, windowSeconds).consume(bucket);
      } catch (rejection) {
        // A RateLimiterRes means "over the limit"; anything else means the counters' store (Redis) is down.
        if (!(rejection instanceof RateLimiterRes)) throw new ServiceUnavailableError(RETRY_AFTER_COUNTERS_DOWN_SECONDS, { cause: rejection });
        result = rejection;
        allowed = false;
      }
      return {
        allowed,
        limit,
        remaining: Math.max(0, limit - result.consumedPoints),
        resetAt: Math.ceil((Date.now() + result.msBeforeNext) / 1000),
      };
    },

    async refund(bucket, limit, windowSeconds = RATE_LIMIT_WINDOW_SECONDS) {
      try {
        await limiterFor(limit, windowSeconds).reward(bucket, 1);
      } catch (error) {
        throw new ServiceUnavailableError(RETRY_AFTER_COUNTERS_DOWN_SECONDS, { cause: error });
      }
    },
  };
}

/**
 * Fixed windows kept in this process's memory: the embedded default, right for one process. The same
 * windows as rate-limiter-flexible's (a window starts at a bucket's first request and lasts
 * RATE_LIMIT_WINDOW_SECONDS, or the length a caller names), counted here rather than with its RateLimiterMemory, whose only way in is a
 * promise: every API request passes through this, and the counter itself is a map entry. Ended windows are
 * swept once a minute, so buckets that stop sending do not stay in memory.
 */
export function createMemoryRateLimiter(clock: () => number = Date.now): RateLimiter & { windowsHeld(): number } {
  const sweepEveryMs = RATE_LIMIT_WINDOW_SECONDS * 1000;
  // By window length and limit, then bucket, as rate-limiter-flexible keeps one store per limiter (nested
  // maps rather than a joined key: no string made on every request's path).
  const windows = new Map<number, Map<number, Map<string, { used: number; endsAt: number }>>>();
  let sweepAt = clock() + sweepEveryMs;
  const bucketsOf = (limit: number, windowSeconds: number) => {
    let byLimit = windows.get(windowSeconds);
    if (!byLimit) windows.set(windowSeconds, (byLimit = new Map()));
    let buckets = byLimit.get(limit);
    if (!buckets) byLimit.set(limit, (buckets = new Map()));
    return buckets;
  };

  function consumeNow(bucket: string, limit: number, windowSeconds = RATE_LIMIT_WINDOW_SECONDS): RateLimitDecision {
    const now = clock();
    if (now >= sweepAt) {
      for (const byLimit of windows.values()) for (const buckets of byLimit.values()) for (const [name, window] of buckets) if (window.endsAt <= now) buckets.delete(name);
      sweepAt = now + sweepEveryMs;
    }
    const buckets = bucketsOf(limit, windowSeconds);
    let window = buckets.get(bucket);
    if (!window || window.endsAt <= now) buckets.set(bucket, (window = { used: 0, endsAt: now + windowSeconds * 1000 }));
    window.used++;
    return { allowed: window.used <= limit, limit, remaining: Math.max(0, limit - window.used), resetAt: Math.ceil(window.endsAt / 1000) };
  }
  return {
    consumeNow,
    consume: async (bucket, limit, windowSeconds) => consumeNow(bucket, limit, windowSeconds),
    refund: async (bucket, limit, windowSeconds = RATE_LIMIT_WINDOW_SECONDS) => {
      const window = bucketsOf(limit, windowSeconds).get(bucket);
      if (window && window.endsAt > clock() && window.used > 0) window.used--;
    },
    /** How many buckets' windows are in memory. */
    windowsHeld: () => [...windows.values()].reduce((sum, byLimit) => sum + [...byLimit.values()].reduce((n, buckets) => n + buckets.size, 0), 0),
  };
}

/**
 * Fixed windows kept in Redis, so every process serving the same keys counts
 * against one budget. rate-limiter-flexible increments and sets the window's
 * expiry atomically. With Redis unreachable, consuming fails (the request
 * answers 503 with Retry-After) rather than letting requests through unlimited.
 */
export function createRedisRateLimiter(redis: Redis, keyPrefix: string): RateLimiter {
  return createRateLimiter(
    (limit, windowSeconds) =>
      new RateLimiterRedis({
        storeClient: redis,
        points: limit,
        duration: windowSeconds,
        // The one-minute windows keep the names they always had, so processes of two versions count together.
        keyPrefix: windowSeconds === RATE_LIMIT_WINDOW_SECONDS ? `${keyPrefix}rl${limit}` : `${keyPrefix}rl${limit}w${windowSeconds}`,
        rejectIfRedisNotReady: true,
      }),
  );
}
