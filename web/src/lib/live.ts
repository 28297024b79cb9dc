import { useEffect, useRef } from 'react';

/** How often a live view asks again: with the answer's own time, a new event shows within 2 seconds. */
export const LIVE_INTERVAL_MS = 1000;

/**
 * Reads a view again every LIVE_INTERVAL_MS while `on`, one read at a time
 * (the next is timed from the end of the last, so a slow answer never piles
 * requests up) and not while the tab is hidden. Polling rather than a push
 * channel: it sees what any Mailroom process wrote to the shared store, with
 * nothing to keep in step between processes.
 */
export function useLive(reload: () => Promise<void>, on: boolean): void {
  const latest = useRef(reload);
  latest.current = reload;
  useEffect(() => {
    if (!on) return;
    let timer: ReturnType<typeof setTimeout>;
    let stopped = false;
    const tick = async () => {
      if (!document.hidden) await latest.current();
      if (!stopped) timer = setTimeout(tick, LIVE_INTERVAL_MS);
    };
    timer = setTimeout(tick, LIVE_INTERVAL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [on]);
}
