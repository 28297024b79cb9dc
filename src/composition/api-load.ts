import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** How often the HTTP thread's load is read. */
export const API_LOAD_SAMPLE_MS = 100;
/** The share of a sample the HTTP thread's event loop spent working at which it counts as busy... */
export const API_BUSY_AT = 0.5;
/** ...and below which it counts as calm again: apart, so a load near one line does not flap. */
export const API_CALM_BELOW = 0.3;

/**
 * Whether the API is busy, read from the calling thread's event-loop
 * utilisation (the share of time its loop spent running callbacks rather than
 * waiting): `serve`'s HTTP thread does nothing but answer requests, so this is
 * its load whatever the requests are (sends, dashboard pages, log searches),
 * and the delivery thread's own work never enters it. `onChange` hears each
 * change, not each sample.
 */
export function watchApiLoad(onChange: (busy: boolean) => void, sampleMs = API_LOAD_SAMPLE_MS): { busy(): boolean; stop(): void } {
  let busy = false;
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    const next = busy ? utilization >= API_CALM_BELOW : utilization >= API_BUSY_AT;
    if (next === busy) return;
    busy = next;
    onChange(busy);
  }, sampleMs);
  // Only requests keep serve alive; the watch must not.
  timer.unref();
  return { busy: () => busy, stop: () => clearInterval(timer) };
}
