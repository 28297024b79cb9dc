import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
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

/** Fixed windows kept in this process's memory: the embedded default, right for one process. */
export function createMemoryRateLimiter(): RateLimiter {
  return createRateLimiter((limit) => new RateLimiterMemory({ points: limit, duration: RATE_LIMIT_WINDOW_SECONDS, keyPrefix: `rl${limit}` }));
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
