/**
 * SPEC.md §8.1's advice to clients, exactly: "back off exponentially with
 * jitter: wait 2^attempt seconds (capped at 10 seconds), plus up to 0.5
 * seconds of jitter, at most 3 retries".
 *
 * `attempt` is read as the number of the retry about to be made (1, 2, 3),
 * i.e. the number of requests that have failed so far: the waits are 2 s,
 * 4 s and 8 s, each plus 0–0.5 s, and the 10 s cap applies from a fourth
 * retry on (maxRetries above 3). A `Retry-After` that asks for longer wins.
 */
export const DEFAULT_MAX_RETRIES = 3;
const CAP_MS = 10_000;
const MAX_JITTER_MS = 500;

/**
 * Answers worth trying again: the rate limit (429) and server-side failures
 * (5xx), as SPEC.md §8.1 says. One more, for a send with an Idempotency-Key:
 * the 409 with `Retry-After` that says an earlier attempt of this very request
 * (one whose answer was lost) is still being processed. Giving up there would
 * leave the caller not knowing whether the message went, and tempted to send
 * it again under a new key; waiting answers the first attempt's outcome. Any
 * other 4xx would fail the same way again.
 */
export function isRetryable(status: number, retryAfterSeconds: number | undefined, idempotent: boolean): boolean {
  if (status === 409) return idempotent && retryAfterSeconds !== undefined;
  return status === 429 || status >= 500;
}

/**
 * Milliseconds to wait before retry number `retry` (1-based). `random` is in
 * [0, 1) like Math.random; `retryAfterSeconds` is the server's `Retry-After`.
 */
export function backoffDelayMs(retry: number, random: number, retryAfterSeconds?: number): number {
  const backoff = Math.min(2 ** retry * 1000, CAP_MS) + random * MAX_JITTER_MS;
  const asked = retryAfterSeconds === undefined ? 0 : retryAfterSeconds * 1000;
  return Math.max(backoff, asked);
}

/**
 * `Retry-After` as seconds: either delta-seconds or an HTTP date (RFC 9110
 * §10.2.3); undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
