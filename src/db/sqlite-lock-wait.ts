import { setTimeout as sleep } from 'node:timers/promises';
import { isMainThread } from 'node:worker_threads';

/**
 * How long a statement waits, in all, for a lock another connection holds
 * before it fails with SQLITE_BUSY (what busy_timeout bounded before).
 */
export const LOCK_WAIT_MS = 5_000;

/**
 * SQLITE_BUSY itself: another connection holds the lock this statement
 * needs, and trying again later may succeed. Its extended codes are not
 * waited out: SQLITE_BUSY_SNAPSHOT, say, means the transaction must start over.
 */
export function isLockBusy(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'SQLITE_BUSY';
}

/** Waits before the next try, the `attempt`-th (from 0); answers the milliseconds waited. */
export type LockWait = (attempt: number) => Promise<number>;

/**
 * On the thread that answers HTTP: the wait is a timer, so the event loop
 * goes on answering requests meanwhile. SQLite's own busy handler would put
 * the whole thread to sleep (1, 2, 5, 10 … ms a time) while the send writer
 * or the delivery thread commits.
 */
export const yieldingLockWait: LockWait = async (attempt) => {
  const ms = Math.min(2 ** Math.floor(attempt / 2), 10);
  await sleep(ms);
  return ms;
};

const waitCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * On a worker thread (the send writer, the delivery thread), which has
 * nothing else to do meanwhile: a short blocking wait, growing from 50 µs to
 * 1 ms, so the lock is taken within a fraction of a millisecond of its
 * release. SQLite's busy handler sleeps 1, 2, 5, 10 … ms a time: a send
 * writer finding the lock held for 3 ms would have slept 8.
 */
export const blockingLockWait: LockWait = async (attempt) => {
  const ms = Math.min(0.05 * 1.5 ** attempt, 1);
  Atomics.wait(waitCell, 0, 0, ms);
  return ms;
};

/**
 * For background work (the delivery worker) beside foreground writers: as
 * SQLite's own busy handler, a millisecond at first and longer after, so that
 * a send writer waiting beside it takes the lock first. A worker that polled
 * as eagerly as the send writer would win the lock as often, and at its lower
 * priority could be put aside by the kernel while holding it.
 */
export const patientLockWait: LockWait = async (attempt) => {
  const ms = Math.min(1 + attempt, 10);
  Atomics.wait(waitCell, 0, 0, ms);
  return ms;
};

/** `background`: the connection's work may wait for anyone else's (patientLockWait); otherwise the wait that suits the calling thread. */
export function lockWaitFor(background: boolean): LockWait {
  if (isMainThread) return yieldingLockWait;
  return background ? patientLockWait : blockingLockWait;
}
