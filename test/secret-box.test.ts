import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { createSecretBox, SecretBoxError } from '../src/lib/secret-box.js';
import { newWebhookSecret } from '../src/webhooks/webhook-signature.js';

const keyFrom = (value: string) => loadConfig({ MAILROOM_SECRET_KEY: value }).secretKey;
const HEX_KEY = 'a'.repeat(64);

describe('webhook secrets at rest', () => {
  it('seals as enc:v1:<base64 nonce|ciphertext|tag> with a key, and opens it again', () => {
    const box = createSecretBox(keyFrom(randomBytes(32).toString('base64')));
    const secret = newWebhookSecret();
    const sealed = box.seal(secret);
    assert.equal(box.encrypts, true);
    assert.match(sealed, /^enc:v1:[A-Za-z0-9+/]+=*$/);
    assert.ok(!sealed.includes(secret.slice('whsec_'.length)), 'the secret is not readable in the stored value');
    // 12-byte nonce, the 50 bytes of whsec_ + 44 base64 characters, 16-byte tag.
    assert.equal(Buffer.from(sealed.slice('enc:v1:'.length), 'base64').length, 12 + secret.length + 16);
    assert.equal(box.open(sealed), secret);
  });

  it('uses a new nonce each time: the same secret sealed twice differs', () => {
    const box = createSecretBox(keyFrom(HEX_KEY));
    const secret = newWebhookSecret();
    const [a, b] = [box.seal(secret), box.seal(secret)];
    assert.notEqual(a, b);
    assert.deepEqual([box.open(a), box.open(b)], [secret, secret]);
  });

  it('stores the plain whsec_ secret without a key, and opens plain values with or without one', () => {
    const plain = createSecretBox(undefined);
    const secret = newWebhookSecret();
    assert.equal(plain.encrypts, false);
    assert.equal(plain.seal(secret), secret);
    assert.equal(plain.open(secret), secret);
    // Secrets stored before a key was set keep working once it is.
    assert.equal(createSecretBox(keyFrom(HEX_KEY)).open(secret), secret);
  });

  it('refuses to open an encrypted value without the key, with the wrong key, or damaged, saying so', () => {
    const secret = newWebhookSecret();
    const sealed = createSecretBox(keyFrom(HEX_KEY)).seal(secret);
    const refuses = (box: ReturnType<typeof createSecretBox>, stored: string, message: string) =>
      assert.throws(
        () => box.open(stored),
        (error: unknown) => error instanceof SecretBoxError && error.message === message && !error.message.includes(secret),
      );
    refuses(createSecretBox(undefined), sealed, 'A webhook secret is stored encrypted, but MAILROOM_SECRET_KEY is not set: set it to the key it was encrypted with');
    const wrong = 'A stored webhook secret could not be decrypted with MAILROOM_SECRET_KEY: it was encrypted with another key, or the stored value is damaged';
    refuses(createSecretBox(keyFrom('b'.repeat(64))), sealed, wrong);
    const bytes = Buffer.from(sealed.slice('enc:v1:'.length), 'base64');
    bytes[20]! ^= 1;
    refuses(createSecretBox(keyFrom(HEX_KEY)), `enc:v1:${bytes.toString('base64')}`, wrong);
    refuses(createSecretBox(keyFrom(HEX_KEY)), 'enc:v1:AAAA', 'A stored webhook secret is damaged: too short to be an encrypted value');
  });

  describe('MAILROOM_SECRET_KEY', () => {
    it('is unset by default: secrets are stored plain', () => {
      assert.equal(loadConfig({}).secretKey, undefined);
    });

    it('takes 32 bytes as 64 hex digits or as base64, standard or URL-safe, padded or not', () => {
      const bytes = randomBytes(32);
      const forms = [bytes.toString('hex'), bytes.toString('hex').toUpperCase(), bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('base64').replace(/=$/, '')];
      for (const form of forms) assert.deepEqual(keyFrom(form)?.export(), bytes, form);
    });

    it('never shows the key when the config is printed', () => {
      const value = randomBytes(32).toString('hex');
      const config = loadConfig({ MAILROOM_SECRET_KEY: value });
      assert.ok(!inspect(config, { depth: 10 }).includes(value));
      assert.ok(!JSON.stringify(config).includes(value));
      assert.ok(!inspect(config, { depth: 10 }).includes(config.secretKey!.export().toString('base64')));
    });

    for (const [name, value] of [
      ['16 bytes of hex', 'ab'.repeat(16)],
      ['33 bytes of base64', randomBytes(33).toString('base64')],
      ['a passphrase', 'correct horse battery staple, hunter2!'],
      ['63 hex digits', 'a'.repeat(63)],
    ]) {
      it(`refuses ${name}, naming the variable and not the value`, () => {
        assert.throws(
          () => loadConfig({ MAILROOM_SECRET_KEY: value! }),
          (error: unknown) =>
            error instanceof ConfigError &&
            error.message === 'Invalid configuration: MAILROOM_SECRET_KEY must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)',
        );
      });
    }
  });
});
