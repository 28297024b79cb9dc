import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ServiceUnavailableError } from './errors.js';

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
  /**
   * Counts `points` at once (a request's recipients) only when they all fit in what the window has left:
   * a refused take counts nothing, so `remaining` then says what is left. Checked and counted atomically.
   * One-minute windows (RATE_LIMIT_WINDOW_SECONDS).
   */
  take(bucket: string, limit: number, points: number): Promise<RateLimitDecision>;
  /** Gives back points taken in the current window (their request was not written after all). */
  giveBack(bucket: string, limit: number, points: number): Promise<void>;
}

/** rate-limiter-flexible keeps one limiter per points-per-window; ours are made on first use of each limit and window. */
function createRateLimiter(make: (limit: number, windowSeconds: number) => RateLimiterAbstract) {
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
    async consume(bucket: string, limit: number, windowSeconds = RATE_LIMIT_WINDOW_SECONDS): Promise<RateLimitDecision> {
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
    /** The Redis key of a bucket's counter, as rate-limiter-flexible names it. */
    keyOf: (bucket: string, limit: number, windowSeconds = RATE_LIMIT_WINDOW_SECONDS) => limiterFor(limit, windowSeconds).getKey(bucket),
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

  /** The bucket's current window, a new one if the last has ended. */
  function windowOf(bucket: string, limit: number, windowSeconds: number, now: number): { used: number; endsAt: number } {
    if (now >= sweepAt) {
      for (const byLimit of windows.values()) for (const buckets of byLimit.values()) for (const [name, window] of buckets) if (window.endsAt <= now) buckets.delete(name);
      sweepAt = now + sweepEveryMs;
    }
    const buckets = bucketsOf(limit, windowSeconds);
    let window = buckets.get(bucket);
    if (!window || window.endsAt <= now) buckets.set(bucket, (window = { used: 0, endsAt: now + windowSeconds * 1000 }));
    return window;
  }
  const decision = (allowed: boolean, limit: number, window: { used: number; endsAt: number }): RateLimitDecision => ({
    allowed,
    limit,
    remaining: Math.max(0, limit - window.used),
    resetAt: Math.ceil(window.endsAt / 1000),
  });

  function consumeNow(bucket: string, limit: number, windowSeconds = RATE_LIMIT_WINDOW_SECONDS): RateLimitDecision {
    const window = windowOf(bucket, limit, windowSeconds, clock());
    window.used++;
    return decision(window.used <= limit, limit, window);
  }
  return {
    consumeNow,
    consume: async (bucket, limit, windowSeconds) => consumeNow(bucket, limit, windowSeconds),
    refund: async (bucket, limit, windowSeconds = RATE_LIMIT_WINDOW_SECONDS) => {
      const window = bucketsOf(limit, windowSeconds).get(bucket);
      if (window && window.endsAt > clock() && window.used > 0) window.used--;
    },
    async take(bucket, limit, points) {
      const window = windowOf(bucket, limit, RATE_LIMIT_WINDOW_SECONDS, clock());
      if (window.used + points > limit) return decision(false, limit, window);
      window.used += points;
      return decision(true, limit, window);
    },
    async giveBack(bucket, limit, points) {
      const window = bucketsOf(limit, RATE_LIMIT_WINDOW_SECONDS).get(bucket);
      if (window && window.endsAt > clock()) window.used = Math.max(0, window.used - points);
    },
    /** How many buckets' windows are in memory. */
    windowsHeld: () => [...windows.values()].reduce((sum, byLimit) => sum + [...byLimit.values()].reduce((n, buckets) => n + buckets.size, 0), 0),
  };
}

/**
 * Takes points only when they all fit: KEYS[1] the window's counter; ARGV points, limit, window (ms).
 * Answers {taken (1 or 0), used, ms until the window ends}. A window starts at its first take, as
 * rate-limiter-flexible's do.
 */
const TAKE_SCRIPT = `
local points = tonumber(ARGV[1])
local used = tonumber(redis.call('get', KEYS[1]) or '0')
local ttl = redis.call('pttl', KEYS[1])
if used + points > tonumber(ARGV[2]) then return {0, used, ttl} end
used = redis.call('incrby', KEYS[1], points)
if ttl < 0 then
  redis.call('pexpire', KEYS[1], ARGV[3])
  ttl = tonumber(ARGV[3])
end
return {1, used, ttl}`;
/** Gives points back to a window still open (never below 0, its expiry kept): KEYS[1] the counter; ARGV points. */
const GIVE_BACK_SCRIPT = `
if redis.call('exists', KEYS[1]) == 0 then return 0 end
local left = redis.call('decrby', KEYS[1], ARGV[1])
if left < 0 then redis.call('incrby', KEYS[1], -left) end
return 0`;

type PointScripts = { mailroomTakePoints(key: string, points: number, limit: number, windowMs: number): Promise<[number, number, number]>; mailroomGiveBackPoints(key: string, points: number): Promise<number> };

/**
 * Fixed windows kept in Redis, so every process serving the same keys counts
 * against one budget. rate-limiter-flexible increments and sets the window's
 * expiry atomically; taking several points only when they fit is a script of
 * ours (rate-limiter-flexible counts a refused take), atomic as well. With
 * Redis unreachable, counting fails (the request answers 503 with
 * Retry-After) rather than letting requests through unlimited.
 */
export function createRedisRateLimiter(redis: Redis, keyPrefix: string): RateLimiter {
  const limiter = createRateLimiter(
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
  redis.defineCommand('mailroomTakePoints', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  redis.defineCommand('mailroomGiveBackPoints', { numberOfKeys: 1, lua: GIVE_BACK_SCRIPT });
  const scripts = redis as unknown as PointScripts;
  const keyOf = (bucket: string, limit: number) => `${keyPrefix}points${limit}:${bucket}`;
  /** As rate-limiter-flexible's `rejectIfRedisNotReady`: a command is not even tried while Redis is away. */
  async function run<T>(command: () => Promise<T>): Promise<T> {
    try {
      if (redis.status !== 'ready') throw new Error(`Redis connection is ${redis.status}`);
      return await command();
    } catch (error) {
      throw new ServiceUnavailableError(RETRY_AFTER_COUNTERS_DOWN_SECONDS, { cause: error });
    }
  }
  return {
    consume: limiter.consume,
    // Not rate-limiter-flexible's reward: on a window that has ended it starts a new one below zero.
    async refund(bucket, limit, windowSeconds) {
      await run(() => scripts.mailroomGiveBackPoints(limiter.keyOf(bucket, limit, windowSeconds), 1));
    },
    async take(bucket, limit, points) {
      const [taken, used, ttl] = await run(() => scripts.mailroomTakePoints(keyOf(bucket, limit), points, limit, RATE_LIMIT_WINDOW_SECONDS * 1000));
      const msLeft = ttl > 0 ? ttl : RATE_LIMIT_WINDOW_SECONDS * 1000;
      return { allowed: taken === 1, limit, remaining: Math.max(0, limit - used), resetAt: Math.ceil((Date.now() + msLeft) / 1000) };
    },
    async giveBack(bucket, limit, points) {
      await run(() => scripts.mailroomGiveBackPoints(keyOf(bucket, limit), points));
    },
  };
}
