/**
 * Entry of a password hashing thread (see password-hashing.ts): one scrypt at
 * a time, synchronously, on this thread itself. The callback form would hand
 * the work to libuv's thread pool, which the whole process shares.
 */
import { scryptSync } from 'node:crypto';
import { parentPort, type MessagePort } from 'node:worker_threads';
import { lowerThreadPriority } from '../lib/thread-priority.js';

/**
 * This thread's nice value (Linux; the rest of the process keeps its own): a
 * flood of sign-ins must not take the cores from the thread answering HTTP.
 * On an idle machine it changes nothing; while the API is busy, a sign-in
 * takes longer.
 */
export const HASH_THREAD_NICE = 10;

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
  maxmem: number;
}
export interface HashRequest {
  /** Already NFKC-normalised. */
  password: string;
  salt: Uint8Array;
  keyLength: number;
  cost: ScryptCost;
}
/** `refused`: scrypt would not run with these parameters (a damaged stored hash). */
export type HashReply = { key: Uint8Array; refused?: undefined } | { key?: undefined; refused: string };

function run(port: MessagePort): void {
  try {
    lowerThreadPriority(HASH_THREAD_NICE);
  } catch {
    // Already lower (serve itself runs niced further, and raising needs a privilege): it stays there.
  }
  port.on('message', (request: HashRequest) => {
    let reply: HashReply;
    try {
      // A copy of its own: the key must not travel with whatever buffer it was cut from.
      reply = { key: new Uint8Array(scryptSync(request.password, request.salt, request.keyLength, request.cost)) };
    } catch (error) {
      reply = { refused: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply satisfies HashReply);
  });
}

if (parentPort) run(parentPort);
