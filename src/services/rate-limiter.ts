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
  consume(bucket: string, limit: number): Promise<RateLimitDecision>;
  /** The same at once, where the counters are in this process (no promise on every request's path). */
  consumeNow?(bucket: string, limit: number): RateLimitDecision;
}

/** rate-limiter-flexible keeps one limiter per points-per-window; ours are made on first use of each limit. */
function createRateLimiter(make: (limit: number) => RateLimiterAbstract): RateLimiter {
  const byLimit = new Map<number, RateLimiterAbstract>();
  const limiterFor = (limit: number) => {
    let limiter = byLimit.get(limit);
    if (!limiter) {
      limiter = make(limit);
      byLimit.set(limit, limiter);
    }
    return limiter;
  };

  return {
    async consume(bucket, limit) {
      let result: RateLimiterRes;
      let allowed = true;
      try {
        result = await limiterFor(limit).consume(bucket);
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
  };
}

/**
 * Fixed windows kept in this process's memory: the embedded default, right for one process. The same
 * windows as rate-limiter-flexible's (a window starts at a bucket's first request and lasts
 * RATE_LIMIT_WINDOW_SECONDS), counted here rather than with its RateLimiterMemory, whose only way in is a
 * promise: every API request passes through this, and the counter itself is a map entry. Ended windows are
 * swept once per window length, so buckets that stop sending do not stay in memory.
 */
export function createMemoryRateLimiter(clock: () => number = Date.now): RateLimiter & { windowsHeld(): number } {
  const windowMs = RATE_LIMIT_WINDOW_SECONDS * 1000;
  // By limit, then bucket, as rate-limiter-flexible keeps one store per limiter.
  const windows = new Map<number, Map<string, { used: number; endsAt: number }>>();
  let sweepAt = clock() + windowMs;

  function consumeNow(bucket: string, limit: number): RateLimitDecision {
    const now = clock();
    if (now >= sweepAt) {
      for (const buckets of windows.values()) for (const [name, window] of buckets) if (window.endsAt <= now) buckets.delete(name);
      sweepAt = now + windowMs;
    }
    let buckets = windows.get(limit);
    if (!buckets) windows.set(limit, (buckets = new Map()));
    let window = buckets.get(bucket);
    if (!window || window.endsAt <= now) buckets.set(bucket, (window = { used: 0, endsAt: now + windowMs }));
    window.used++;
    return { allowed: window.used <= limit, limit, remaining: Math.max(0, limit - window.used), resetAt: Math.ceil(window.endsAt / 1000) };
  }
  return {
    consumeNow,
    consume: async (bucket, limit) => consumeNow(bucket, limit),
    /** How many buckets' windows are in memory. */
    windowsHeld: () => [...windows.values()].reduce((sum, buckets) => sum + buckets.size, 0),
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
    (limit) =>
      new RateLimiterRedis({
        storeClient: redis,
        points: limit,
        duration: RATE_LIMIT_WINDOW_SECONDS,
        keyPrefix: `${keyPrefix}rl${limit}`,
        rejectIfRedisNotReady: true,
      }),
  );
}
