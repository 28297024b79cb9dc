import type { Redis } from 'ioredis';
import { UnreachableError } from './database.js';

/** How long start-up waits for Redis before giving up. */
const REDIS_CONNECT_TIMEOUT_MS = 5_000;

/**
 * Connects to REDIS_URL, or throws naming the variable (never the URL, which
 * may carry a password). Commands fail at once while the connection is down
 * instead of queueing: a rate-limit check must not hang a request.
 */
export async function connectRedis(url: string): Promise<Redis> {
  // Loaded only with REDIS_URL: ioredis is some 8 MB of heap that the embedded default never uses.
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
  });
  // Reconnection is ioredis's job; without a listener each failed attempt would be printed as
  // unhandled. The first one explains a failed start better than ioredis's "Connection is closed".
  let firstError: Error | undefined;
  redis.on('error', (error: Error) => {
    firstError ??= error;
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new UnreachableError(`Cannot reach Redis at REDIS_URL: ${(firstError ?? (error as Error)).message}`);
  }
  return redis;
}
