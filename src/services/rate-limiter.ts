import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

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

/** Fixed windows kept in this process's memory (rate-limiter-flexible): the embedded default. */
export function createMemoryRateLimiter(): RateLimiter {
  const byLimit = new Map<number, RateLimiterMemory>();
  const limiterFor = (limit: number) => {
    let limiter = byLimit.get(limit);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points: limit, duration: RATE_LIMIT_WINDOW_SECONDS, keyPrefix: `rl${limit}` });
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
