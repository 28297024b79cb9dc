/**
 * Waits until `condition` holds, checking every `intervalMs`, and fails with
 * `what` after `timeoutMs`: tests wait for conditions, never for a fixed time.
 * `what` may be a function, asked at the timeout, to tell what was seen last.
 */
export async function waitFor<T>(
  condition: () => Promise<T> | T,
  what: string | (() => string),
  { timeoutMs = 30_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** What `promise` settles to, failing after `ms` with `what` rather than hanging the run (and skipping the test's cleanup). */
export async function settleWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
