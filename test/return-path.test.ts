import assert from 'node:assert/strict';
import { hkdfSync, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadReturnPathKeys } from '../src/inbound/return-path-key.js';
import { createReturnPathSigner, RETURN_PATH_TTL_DAYS } from '../src/inbound/return-path.js';
import { newId } from '../src/lib/ids.js';
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

  it('are one made once and kept in the store sealed under the installation\'s key, so every process signs alike', async () => {
    const [first, ...rest] = await loadReturnPathKeys(t.store, t.config.secretKey!);
    assert.equal(first!.length, 32);
    assert.equal(rest.length, 1, 'and the legacy derived key, which only checks');
    assert.deepEqual(await loadReturnPathKeys(t.store, t.config.secretKey!), [first, ...rest]);
    const stored = await t.db.selectFrom('server_secrets').select('value').where('name', '=', 'return_path_key').executeTakeFirstOrThrow();
    assert.match(stored.value, /^enc:v1:/);
    assert.ok(!stored.value.includes(first!.toString('base64')), 'the stored value is not the key');
    const path = t.returnPaths.sign(newId('msg'), 0, DOMAIN);
    assert.equal(createReturnPathSigner([first!]).verify(path).ok, true, "the app's own signer uses the stored key");
  });

  it('still honour return paths signed, before the key was always there, with the key derived from MAILROOM_SECRET_KEY', async () => {
    const secret = randomBytes(32).toString('base64');
    const keyed = await createTestApp({ MAILROOM_SECRET_KEY: secret });
    try {
      const derived = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'base64'), Buffer.alloc(0), 'mailroom return-path key v1', 32));
      const id = newId('msg');
      const signedByOldVersion = createReturnPathSigner([derived]).sign(id, 0, DOMAIN);
      assert.equal(keyed.returnPaths.verify(signedByOldVersion).ok, true);
      assert.notEqual(keyed.returnPaths.sign(id, 0, DOMAIN), signedByOldVersion, 'new return paths are signed with the stored key');
      assert.equal(t.returnPaths.verify(signedByOldVersion).ok, false, 'another installation does not honour it');
    } finally {
      await keyed.close();
    }
  });
});
