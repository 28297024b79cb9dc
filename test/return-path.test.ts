import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { loadReturnPathKeys } from '../src/inbound/return-path-key.js';
import { createReturnPathSigner, RETURN_PATH_TTL_DAYS } from '../src/inbound/return-path.js';
import { newId } from '../src/ids.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const DAY = 86_400_000;
const DOMAIN = 'mr-bounces.acme.example';

describe('signed return paths', () => {
  const signer = createReturnPathSigner([randomBytes(32)]);
  const id = newId('msg');

  it('signs one return path per recipient that verifies back to the message and the recipient, within 64 octets', () => {
    const paths = [0, 1, 49].map((index) => signer.sign(id, index, DOMAIN));
    assert.equal(new Set(paths).size, 3);
    for (const [n, path] of paths.entries()) {
      assert.match(path, new RegExp(`^bounce\\+${id}\\.\\d+\\.[0-9a-z]+\\.[a-z2-7]{16}@${DOMAIN.replaceAll('.', '\\.')}$`));
      assert.ok(path.indexOf('@') <= 64, `local part of ${path} fits RFC 5321`);
      assert.deepEqual(signer.verify(path), { ok: true, messageId: id, recipientIndex: [0, 1, 49][n] });
      assert.deepEqual(signer.verify(`<${path.toUpperCase()}>`), { ok: true, messageId: id, recipientIndex: [0, 1, 49][n] }, 'case and angle brackets do not matter');
    }
  });

  it('refuses a path whose message, index, day or tag was changed, or signed with another key', () => {
    const path = signer.sign(id, 1, DOMAIN);
    const [, local] = /^bounce\+([^@]+)@/.exec(path)!;
    const [messageId, index, day, tag] = local!.split('.') as [string, string, string, string];
    const other = newId('msg');
    for (const forged of [
      `bounce+${other}.${index}.${day}.${tag}@${DOMAIN}`,
      `bounce+${messageId}.2.${day}.${tag}@${DOMAIN}`,
      `bounce+${messageId}.${index}.${(parseInt(day, 36) + 1).toString(36)}.${tag}@${DOMAIN}`,
      `bounce+${messageId}.${index}.${day}.${tag.slice(0, 15)}${tag.endsWith('a') ? 'b' : 'a'}@${DOMAIN}`,
      createReturnPathSigner([randomBytes(32)]).sign(id, 1, DOMAIN),
    ]) {
      assert.deepEqual(signer.verify(forged), { ok: false, reason: "the return path's tag does not match" }, forged);
    }
    assert.deepEqual(signer.verify(`bounce+${id}@${DOMAIN}`), { ok: false, reason: 'the return path is not signed' });
    assert.deepEqual(signer.verify(`postmaster@${DOMAIN}`), { ok: false, reason: 'not a return path' });
  });

  it(`honours a path for ${RETURN_PATH_TTL_DAYS} days, and a day ahead of this clock, not longer`, () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    assert.equal(signer.verify(signer.sign(id, 0, DOMAIN, now - RETURN_PATH_TTL_DAYS * DAY), now).ok, true);
    assert.deepEqual(signer.verify(signer.sign(id, 0, DOMAIN, now - (RETURN_PATH_TTL_DAYS + 1) * DAY), now), {
      ok: false, reason: 'the return path expired (signed 31 days ago; valid for 30)',
    });
    assert.equal(signer.verify(signer.sign(id, 0, DOMAIN, now + DAY), now).ok, true);
    assert.deepEqual(signer.verify(signer.sign(id, 0, DOMAIN, now + 3 * DAY), now), { ok: false, reason: 'the return path is dated in the future' });
  });
});

describe('the return-path keys', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('are, without MAILROOM_SECRET_KEY, one made once and kept in the store, so every process signs alike', async () => {
    const [first, ...rest] = await loadReturnPathKeys(t.store, undefined);
    assert.equal(first!.length, 32);
    assert.deepEqual(rest, []);
    assert.deepEqual(await loadReturnPathKeys(t.store, undefined), [first]);
    const path = t.returnPaths.sign(newId('msg'), 0, DOMAIN);
    assert.equal(createReturnPathSigner([first!]).verify(path).ok, true, "the app's own signer uses the stored key");
  });

  it('are, with MAILROOM_SECRET_KEY, one derived from it (stored nowhere) that signs, and the stored one that still checks', async () => {
    const storedBefore = await t.db.selectFrom('server_secrets').selectAll().execute();
    const secretKey = loadConfig({ MAILROOM_SECRET_KEY: randomBytes(32).toString('base64') }).secretKey;
    const keys = await loadReturnPathKeys(t.store, secretKey);
    assert.equal(keys.length, 2);
    assert.deepEqual(await loadReturnPathKeys(t.store, secretKey), keys, 'the same secret derives the same key');
    assert.deepEqual(await t.db.selectFrom('server_secrets').selectAll().execute(), storedBefore, 'nothing more is stored');
    const signer = createReturnPathSigner(keys);
    const id = newId('msg');
    const signedBefore = t.returnPaths.sign(id, 0, DOMAIN);
    assert.equal(signer.verify(signedBefore).ok, true, 'a return path signed before the secret was set is still honoured');
    const signedNow = signer.sign(id, 0, DOMAIN);
    assert.notEqual(signedNow, signedBefore);
    assert.equal(t.returnPaths.verify(signedNow).ok, false, 'it is signed with the derived key');
    const rotated = await loadReturnPathKeys(t.store, loadConfig({ MAILROOM_SECRET_KEY: randomBytes(32).toString('base64') }).secretKey);
    assert.equal(createReturnPathSigner(rotated).verify(signedNow).ok, false, 'another secret, another key: what it signed is no longer honoured');
  });
});
