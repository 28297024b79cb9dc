import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { nowIso } from '../src/ids.js';
import { secretHash } from '../src/secret-token.js';

describe('timestamps and secret hashes', () => {
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
  });
});
