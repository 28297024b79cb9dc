import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** DESIGN.md fixes one-minute windows; only the number of requests per window is configurable. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix time, in seconds, at which the current window ends. */
  resetAt: number;
}

export interface RateLimiter {
  consume(bucket: string, limit: number): Promise<RateLimitDecision>;
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
        // A RateLimiterRes means "over the limit"; anything else (Redis down) is an error.
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
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

/** Fixed windows kept in this process's memory: the embedded default, right for one process. */
export function createMemoryRateLimiter(): RateLimiter {
  return createRateLimiter((limit) => new RateLimiterMemory({ points: limit, duration: RATE_LIMIT_WINDOW_SECONDS, keyPrefix: `rl${limit}` }));
}

/**
 * Fixed windows kept in Redis, so every process serving the same keys counts
 * against one budget. rate-limiter-flexible increments and sets the window's
 * expiry atomically. With Redis unreachable, consuming fails (the request
 * answers 500) rather than letting requests through unlimited.
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
