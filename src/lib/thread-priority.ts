import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * The kernel's id of the calling thread (Linux: /proc/thread-self names it),
 * or undefined where there is no such file.
 */
export function currentThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Lowers the calling thread's OS priority to `nice`, and with it that of
 * every thread it starts from then on (a new thread inherits its creator's).
 * Linux keeps a nice value per thread, and setpriority(2) given a thread id
 * sets that thread's alone: the rest of the process (the thread answering
 * HTTP, the send writer) keeps its own. Answers the thread id and the value
 * now in force, or no thread id where the platform has no per-thread nice.
 */
export function lowerThreadPriority(nice: number): { tid: number | undefined; nice: number | undefined } {
  const tid = currentThreadId();
  if (tid === undefined) return { tid, nice: undefined };
  setPriority(tid, nice);
  return { tid, nice };
}
