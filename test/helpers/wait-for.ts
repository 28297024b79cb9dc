/**
 * Waits until `condition` holds, checking every `intervalMs`, and fails with
 * `what` (and the last value seen, when given) after `timeoutMs`: tests wait
 * for conditions, never for a fixed time.
 */
export async function waitFor<T>(
  condition: () => Promise<T> | T,
  what: string,
  { timeoutMs = 30_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await condition();
    if (last) return last as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
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
