import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeTime } from 'ulid';
import { firstIdAt, newId, nowIso } from '../src/lib/ids.js';
import { secretHash, secretHashBytes } from '../src/lib/secret-token.js';

describe('ids, timestamps and secret hashes', () => {
  it('newId is the prefix and a lower-case ULID of the millisecond it was made in, every id above the one before', () => {
    let previous = '';
    const randomParts = new Set<string>();
    const times = new Set<number>();
    // Enough ids that many share a millisecond (each above the last by one) and the clock moves several times.
    for (let i = 0; i < 50_000 || times.size < 3; i++) {
      const before = Date.now();
      const id = newId('msg');
      const after = Date.now();
      assert.match(id, /^msg_[0-9a-hjkmnp-tv-z]{26}$/);
      const ulid = id.slice(4);
      const at = decodeTime(ulid.toUpperCase());
      assert.ok(at >= before && at <= after, `${id} decodes to ${at}, not between ${before} and ${after}`);
      assert.ok(id > previous, `${id} is not above ${previous}`);
      if (previous.slice(4, 14) === ulid.slice(0, 10)) {
        // Same millisecond: the 80-bit random part is the one before plus one.
        assert.equal(BigInt(`0x${toHex(ulid.slice(10))}`), BigInt(`0x${toHex(previous.slice(14))}`) + 1n);
      } else {
        randomParts.add(ulid.slice(10));
      }
      times.add(at);
      previous = id;
    }
    assert.equal(randomParts.size, times.size, 'each millisecond starts from a random part of its own');
    const last = newId('msg');
    const madeAt = decodeTime(last.slice(4).toUpperCase());
    assert.ok(firstIdAt('msg', madeAt) <= last && firstIdAt('msg', madeAt + 1) > last, 'firstIdAt bounds the ids of a millisecond');
  });


  it('nowIso is the current millisecond in ISO 8601 UTC, formatted once per millisecond and never stale', () => {
    // Calls until the clock has moved on at least twice: each answer is the millisecond it was asked in.
    const seen = new Set<string>();
    while (seen.size < 3) {
      const before = Date.now();
      const iso = nowIso();
      const after = Date.now();
      const at = Date.parse(iso);
      assert.match(iso, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(at >= before && at <= after, `${iso} is not between ${before} and ${after}`);
      seen.add(iso);
    }
  });

  it('secretHash is the SHA-256 of the secret, in hex, as the stored API keys and tokens are', () => {
    assert.equal(secretHash('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const key = 'mr_Ünïcode-and-ascii_0123456789';
    assert.equal(secretHash(key), createHash('sha256').update(key).digest('hex'));
    assert.deepEqual(secretHashBytes(key), createHash('sha256').update(key).digest());
  });
});

/** A 16-character Crockford base-32 string as hex, for the arithmetic above. */
function toHex(base32: string): string {
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  let n = 0n;
  for (const c of base32) n = n * 32n + BigInt(alphabet.indexOf(c));
  return n.toString(16);
}
