import { randomFillSync } from 'node:crypto';
import { encodeTime } from 'ulid';

/**
 * Identifiers are `<prefix>_<ULID>`: unique, URL-safe and sortable by creation
 * time. Ids made in the same millisecond stay ordered as ulid's monotonic
 * factory keeps them: the 80-bit random part of the millisecond's first id is
 * incremented. Made here rather than by that factory, which builds each id a
 * character at a time, random part and time alike (about 1 µs an id, and a send
 * makes four): the time part is encoded once per millisecond, the random part
 * is two 40-bit integers encoded two characters per table look-up, in lower case
 * directly. `ulid` still encodes the time, and the tests decode ours with it.
 */
const CROCKFORD_BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';
/** Two base-32 characters for each 10-bit value. */
const PAIRS = Array.from({ length: 1024 }, (_, n) => CROCKFORD_BASE32[n >> 5]! + CROCKFORD_BASE32[n & 31]!);
const FORTY_BITS = 2 ** 40;

/** 40 bits as 8 base-32 characters, most significant first. */
function base32Of40Bits(n: number): string {
  return PAIRS[Math.floor(n / 2 ** 30)]! + PAIRS[Math.floor(n / 2 ** 20) % 1024]! + PAIRS[Math.floor(n / 1024) % 1024]! + PAIRS[n % 1024]!;
}

/** 40 random bits from a refilled pool of CSPRNG bytes: a system call per id showed up in profiles. */
const randomPool = Buffer.alloc(4000);
let poolOffset = randomPool.length;
function random40Bits(): number {
  if (poolOffset === randomPool.length) {
    randomFillSync(randomPool);
    poolOffset = 0;
  }
  const n = randomPool.readUIntBE(poolOffset, 5);
  poolOffset += 5;
  return n;
}

let ulidMs = -1;
let ulidTime = '';
let randomHigh = 0;
let randomLow = 0;

function nextUlid(): string {
  const ms = Date.now();
  if (ms > ulidMs) {
    ulidMs = ms;
    ulidTime = encodeTime(ms, 10).toLowerCase();
    randomHigh = random40Bits();
    randomLow = random40Bits();
  } else if (++randomLow === FORTY_BITS) {
    // The same millisecond (or the clock went back, when the last one's time is kept): the next value up.
    randomLow = 0;
    if (++randomHigh === FORTY_BITS) throw new Error('Cannot make more ids in this millisecond');
  }
  return ulidTime + base32Of40Bits(randomHigh) + base32Of40Bits(randomLow);
}

export type IdPrefix = 'ws' | 'key' | 'dom' | 'msg' | 'log' | 'att' | 'evt' | 'wh' | 'whd' | 'wha' | 'usr' | 'inv' | 'req' | 'ups' | 'tpl' | 'tplv';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
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
