import { randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';

/**
 * Identifiers are `<prefix>_<ULID>`: unique, URL-safe and sortable by creation
 * time (the monotonic factory keeps ids made in the same millisecond ordered).
 */
const nextUlid = monotonicFactory(pooledRandom());

/**
 * ulid asks its PRNG once per character; a system call each time showed up in
 * profiles. Draw from a refilled pool of CSPRNG bytes instead.
 */
function pooledRandom(): () => number {
  const pool = Buffer.alloc(4096);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++]! / 256;
  };
}

export type IdPrefix = 'ws' | 'key' | 'dom' | 'msg' | 'log' | 'job' | 'att' | 'evt' | 'wh' | 'whd' | 'wha' | 'usr' | 'inv' | 'req';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}

/**
 * The smallest id a `prefix` id made at `ms` or later can have: every id
 * below it (same prefix) was made earlier, as a ULID starts with its time.
 * Lets a table's primary key serve as its index by age.
 */
export function firstIdAt(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${encodeTime(ms, 10).toLowerCase()}`;
}

let lastMs = Number.NaN;
let lastIso = '';

/** Timestamps are ISO 8601 UTC with milliseconds, e.g. `2026-11-22T10:00:00.000Z`. */
export function nowIso(): string {
  // A send asks several times within the same millisecond: format each millisecond once.
  const ms = Date.now();
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
