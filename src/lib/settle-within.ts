/**
 * Of SHUTDOWN_GRACE_MS, what deliveries and webhook posts in flight at a stop
 * get to finish; the rest of the grace is for giving back the jobs still held,
 * closing the store and exiting.
 */
export function workGraceMs(shutdownGraceMs: number): number {
  return Math.floor(shutdownGraceMs * 0.75);
}

/**
 * Resolves 'done' once nothing `inFlight()` lists is left (asked again after
 * each round: finishing work may start more, e.g. writing its outcome), or
 * 'timeout' after `ms`, whatever is still running.
 */
export async function settleWithin(inFlight: () => Promise<unknown>[], ms: number): Promise<'done' | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const over = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  const settled = (async () => {
    for (let pending = inFlight(); pending.length > 0; pending = inFlight()) await Promise.allSettled(pending);
    return 'done' as const;
  })();
  try {
    return await Promise.race([settled, over]);
  } finally {
    clearTimeout(timer);
  }
}
