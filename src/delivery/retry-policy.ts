/** First retry after about this long… */
export const DEFAULT_RETRY_BASE_MS = 60_000;
/** …doubling per attempt up to this… */
export const DEFAULT_RETRY_MAX_DELAY_MS = 60 * 60_000;
/** …and no more attempts than this in all (the first one included): at most about 4 hours of retrying with the defaults. */
export const DEFAULT_MAX_ATTEMPTS = 10;

export interface RetryPolicy {
  baseMs: number;
  maxDelayMs: number;
  maxAttempts: number;
}

/**
 * How long to wait after a temporary failure of attempt number `attempt`
 * (1 for the first), or null when that was the last attempt allowed and the
 * recipient is to be marked failed. Exponential backoff with "equal jitter":
 * half the capped delay for sure, the other half at random, so retries from a
 * burst spread out without ever coming back sooner than half the schedule.
 */
export function retryDelayMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number | null {
  if (attempt >= policy.maxAttempts) return null;
  const exponential = policy.baseMs * 2 ** Math.min(attempt - 1, 52);
  const capped = Math.min(policy.maxDelayMs, exponential);
  return Math.round(capped / 2 + random() * (capped / 2));
}
