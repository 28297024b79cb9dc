import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { RateLimitError, ServiceUnavailableError } from '../lib/errors.js';
import { startModuleThread } from '../lib/module-worker.js';
import type { HashReply, HashRequest, ScryptCost } from './password-hash-thread.js';

/** Password hashes that run at once in one process, at the most: each takes 32 MiB and a core for some 190 ms. */
export const MAX_HASHES_AT_ONCE = 4;
/**
 * Hashes that may wait for a thread; one more is refused with 429 at once.
 * About a second and a half of work on two idle cores: a sign-in that would
 * wait longer is better told to try again than left hanging behind a flood.
 */
export const MAX_HASHES_WAITING = 16;
export const HASHING_BUSY = 'Too many sign-ins at once: try again in a moment';
/** What a refused hash is told to wait: the queue moves by a few hashes a second and more. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** scrypt would not run with a stored hash's parameters: that hash is damaged, the password does not match it. */
export class ScryptRefusedError extends Error {
  override name = 'ScryptRefusedError';
}

interface Job {
  request: HashRequest;
  resolve(key: Buffer): void;
  reject(error: Error): void;
}

interface HashThread {
  worker: Worker;
  job: Job | undefined;
}

export interface HashingState {
  /** Hashes running now. */
  running: number;
  waiting: number;
  /** The most that ever ran at once. */
  peakRunning: number;
  /** Hashes handed to a thread since the process started. */
  started: number;
}

const THREAD_ENTRY = new URL('./password-hash-thread.js', import.meta.url);

/**
 * Password hashes on threads of their own, `size` at a time, with a bounded
 * queue. Not on libuv's thread pool, where `crypto.scrypt` would run: that
 * pool (4 threads unless UV_THREADPOOL_SIZE, which only counts if set before
 * the pool's first use, and the ES module loader uses it before any of
 * Mailroom's code runs) also reads the dashboard's files and answers DNS
 * look-ups, so a flood of sign-ins would stall both. Threads start on first
 * use and are unreferenced while idle; one that dies fails its hash with 503
 * and the next hash starts another.
 */
export function createPasswordHashing(size: number) {
  const threads: HashThread[] = [];
  const waiting: Job[] = [];
  const state = { peakRunning: 0, started: 0 };
  const running = () => threads.filter((thread) => thread.job).length;

  function assign(thread: HashThread, job: Job): void {
    thread.job = job;
    state.started++;
    state.peakRunning = Math.max(state.peakRunning, running());
    thread.worker.ref();
    thread.worker.postMessage(job.request);
  }

  function finish(thread: HashThread): Job {
    const job = thread.job!;
    thread.job = undefined;
    const next = waiting.shift();
    if (next) assign(thread, next);
    else thread.worker.unref();
    return job;
  }

  function lost(thread: HashThread, reason: string): void {
    const at = threads.indexOf(thread);
    if (at === -1) return;
    threads.splice(at, 1);
    thread.job?.reject(new ServiceUnavailableError(BUSY_RETRY_AFTER_SECONDS, { cause: new Error(reason) }));
    thread.job = undefined;
    const next = waiting.shift();
    if (!next) return;
    try {
      assign(startThread(), next);
    } catch (error) {
      // Inside a thread's 'exit' listener: thrown on, it would be uncaught. The job waiting fails instead.
      next.reject(new ServiceUnavailableError(BUSY_RETRY_AFTER_SECONDS, { cause: error }));
    }
  }

  function startThread(): HashThread {
    const thread: HashThread = { worker: startModuleThread(THREAD_ENTRY, null), job: undefined };
    thread.worker.unref();
    thread.worker.on('message', (reply: HashReply) => {
      const job = finish(thread);
      if (reply.key) job.resolve(Buffer.from(reply.key.buffer, reply.key.byteOffset, reply.key.byteLength));
      else job.reject(new ScryptRefusedError(reply.refused));
    });
    thread.worker.on('error', (error) => lost(thread, `The password hashing thread failed: ${error.message}`));
    thread.worker.on('exit', (code) => lost(thread, `The password hashing thread exited (code ${code})`));
    threads.push(thread);
    return thread;
  }

  const full = () => waiting.length >= MAX_HASHES_WAITING;
  const busy = () => new RateLimitError(BUSY_RETRY_AFTER_SECONDS, HASHING_BUSY);

  return {
    /** scrypt of an NFKC-normalised password; RateLimitError (429) when MAX_HASHES_WAITING wait already. */
    scrypt(password: string, salt: Buffer, keyLength: number, cost: ScryptCost): Promise<Buffer> {
      return new Promise((resolve, reject) => {
        // Copied into a buffer of its own: a slice of Node's shared pool would be cloned whole.
        const job: Job = { request: { password, salt: new Uint8Array(salt), keyLength, cost }, resolve, reject };
        const idle = threads.find((thread) => !thread.job) ?? (threads.length < size ? startThread() : undefined);
        if (idle) return assign(idle, job);
        if (full()) return reject(busy());
        waiting.push(job);
      });
    },

    /**
     * The same 429 at once, while the queue is full: a caller with look-ups to make before its hash
     * (a sign-in's) spares the store work whose hash would be refused anyway.
     */
    refuseWhileFull(): void {
      if (full()) throw busy();
    },

    state(): HashingState {
      return { running: running(), waiting: waiting.length, ...state };
    },
  };
}

/**
 * The process's hashing. No more threads than cores: past that they would
 * only share the cores, each hash taking longer and holding its 32 MiB longer.
 */
export const passwordHashing = createPasswordHashing(Math.min(MAX_HASHES_AT_ONCE, availableParallelism()));
