import { useEffect, useRef } from 'react';

/**
 * How long a live view waits after an answer before asking again: with the
 * answer's own time (a few hundred ms on a loaded machine), a new event shows
 * well within 2 seconds.
 */
export const LIVE_INTERVAL_MS = 750;

/**
 * Reads a view again LIVE_INTERVAL_MS after its last answer while `on`, one read at a time
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
