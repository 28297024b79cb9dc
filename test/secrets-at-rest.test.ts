import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { newId } from '../src/lib/ids.js';
import { createSecretBox, DKIM_PRIVATE_KEY } from '../src/lib/secret-box.js';
import { webhookSigningSecret } from '../src/webhooks/webhook-service.js';
import { generateDkimKeyPair } from '../src/domains/dkim-keys.js';
import { BIN, mailroomCommand, startServe, storeLine } from './helpers/serve-process.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { freshStore, TEST_STORE, type FreshStore } from './helpers/test-store.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;
const keyOf = (text: string) => loadConfig({ MAILROOM_SECRET_KEY: text }).secretKey!;
const HOOK_URL = 'http://127.0.0.1:9/hook';

/** `mailroom serve` expected to stop at start-up: its status and what it printed (bounded, should it start after all). */
function serveThatFails(env: Record<string, string>) {
  const res = spawnSync(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, PORT: '0', INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: res.status, stderr: res.stderr, stdout: res.stdout };
}

/** The app over a store, as createTestApp makes it, taking a loopback webhook URL. */
const appOn = (env: Record<string, string>, options: Parameters<typeof createTestApp>[1] = {}) => createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'error', ...env }, options);

/** A webhook and a domain (with its sealed DKIM key) in the app's workspace. */
async function webhookAndDomain(t: TestApp) {
  const hook = await t.call('POST', '/v1/webhooks', { body: { url: HOOK_URL } });
  const domain = await t.call('POST', '/v1/domains', { body: { domain: `d${randomBytes(3).toString('hex')}.example` } });
  assert.deepEqual([hook.statusCode, domain.statusCode], [201, 201], hook.body + domain.body);
  return { hook: hook.json().data, domain: domain.json().data };
}

describe('secrets at rest', () => {
  let store: FreshStore;
  before(async () => {
    store = await freshStore();
  });
  after(() => store.drop());

  it('makes the data dir 0700 and the store and key files 0600 whatever the umask, and tightens an older, wider data dir', async () => {
    const old = process.umask(0o000);
    // On PostgreSQL the data dir holds the key file only.
    const files = TEST_STORE === 'sqlite' ? ['mailroom.db', 'mailroom.db-wal', 'mailroom.db-shm', 'secret.key'] : ['secret.key'];
    const fresh = await freshStore();
    try {
      const dataDir = join(fresh.dataDir, 'nested', 'data');
      const t = await appOn({ ...fresh.env, MAILROOM_DATA_DIR: dataDir });
      try {
        await t.call('POST', '/v1/send', { body: { to: ['a@example.com'], from_email: 'hello@sandbox.mailroom.test', subject: 'x', text: 'x' } });
        assert.equal(modeOf(dataDir), 0o700);
        for (const file of files) assert.equal(modeOf(join(dataDir, file)), 0o600, file);
      } finally {
        await t.close();
      }
      // As an older version left it: everyone may read.
      chmodSync(dataDir, 0o755);
      const kept = files.filter((file) => existsSync(join(dataDir, file))); // the WAL and its index go with the last connection
      for (const file of kept) chmodSync(join(dataDir, file), 0o644);
      const again = await appOn({ ...fresh.env, MAILROOM_DATA_DIR: dataDir }, { shareStoreWith: { storeEnv: { ...fresh.env, MAILROOM_DATA_DIR: dataDir } } as unknown as TestApp });
      await again.close();
      assert.equal(modeOf(dataDir), 0o700);
      for (const file of kept) assert.equal(modeOf(join(dataDir, file)), 0o600, file);
    } finally {
      process.umask(old);
      await fresh.drop();
    }
  });

  it('makes a key file on the first start only, warning once that it must be backed up, and seals DKIM keys and webhook secrets with it', async () => {
    const fresh = await freshStore();
    try {
      const first = await startServe(fresh.env);
      await first.stop();
      const warning = /Made a secret key at [^ ]*secret\.key: DKIM private keys and webhook secrets are encrypted with it\. Back it up/;
      assert.match(first.output(), warning);
      const keyText = readFileSync(join(fresh.dataDir, 'secret.key'), 'utf8');
      const second = await startServe(fresh.env);
      await second.stop();
      assert.doesNotMatch(second.output(), warning);
      assert.equal(readFileSync(join(fresh.dataDir, 'secret.key'), 'utf8'), keyText, 'the same key on every start');

      const t = await appOn({}, { shareStoreWith: { storeEnv: fresh.env } as TestApp });
      try {
        const { hook, domain } = await webhookAndDomain(t);
        const row = await t.db.selectFrom('domains').select('dkim_private_key').where('id', '=', domain.id).executeTakeFirstOrThrow();
        assert.match(row.dkim_private_key, /^enc:v1:/);
        assert.match(createSecretBox(keyOf(keyText), DKIM_PRIVATE_KEY).open(row.dkim_private_key), /^-----BEGIN PRIVATE KEY-----/);
        const stored = await t.db.selectFrom('webhooks').select('secret').where('id', '=', hook.id).executeTakeFirstOrThrow();
        assert.equal(webhookSigningSecret(stored, { secretKey: keyOf(keyText) }), hook.secret);
      } finally {
        await t.close();
      }
    } finally {
      await fresh.drop();
    }
  });

  it('seals, at start, the secrets an older version stored in clear, which keep working', async () => {
    const t = await appOn({}, { shareStoreWith: { storeEnv: store.env } as TestApp });
    const { hook, domain } = await webhookAndDomain(t);
    const pem = (await generateDkimKeyPair()).privateKeyPem;
    // As a version before this one stored them.
    await t.db.updateTable('webhooks').set({ secret: hook.secret }).where('id', '=', hook.id).execute();
    await t.db.updateTable('domains').set({ dkim_private_key: pem }).where('id', '=', domain.id).execute();
    await t.close();
    const again = await appOn({}, { shareStoreWith: { storeEnv: store.env } as TestApp });
    try {
      const hookRow = await again.db.selectFrom('webhooks').select('secret').where('id', '=', hook.id).executeTakeFirstOrThrow();
      const domainRow = await again.db.selectFrom('domains').select('dkim_private_key').where('id', '=', domain.id).executeTakeFirstOrThrow();
      assert.match(hookRow.secret, /^enc:v1:/);
      assert.match(domainRow.dkim_private_key, /^enc:v1:/);
      assert.equal(webhookSigningSecret(hookRow, again.config), hook.secret);
      assert.equal(createSecretBox(again.config.secretKey, DKIM_PRIVATE_KEY).open(domainRow.dkim_private_key), pem);
    } finally {
      await again.close();
    }
  });

  it('stops the start with one line when the key is not the store\'s, or when the store\'s key file is missing', () => {
    const wrong = serveThatFails({ ...store.env, MAILROOM_SECRET_KEY: randomBytes(32).toString('base64') });
    assert.equal(wrong.status, 1);
    assert.equal(
      wrong.stderr,
      `${storeLine(store.env)}mailroom: MAILROOM_SECRET_KEY is not the key the secrets in the store were encrypted with: give the key they were encrypted with (the store's backup key file, or the MAILROOM_SECRET_KEY of its other processes)\n`,
    );
    const keyFile = join(store.dataDir, 'secret.key');
    const keyText = readFileSync(keyFile, 'utf8');
    writeFileSync(keyFile, randomBytes(32).toString('base64'));
    const wrongFile = serveThatFails(store.env);
    assert.equal(wrongFile.status, 1);
    assert.ok(wrongFile.stderr.startsWith(storeLine(store.env)), wrongFile.stderr);
    assert.match(wrongFile.stderr.slice(storeLine(store.env).length), /^mailroom: \/[^ ]*\/secret\.key is not the key the secrets in the store were encrypted with: [^\n]*\n$/);
    rmSync(keyFile);
    const missing = serveThatFails(store.env);
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr, `${storeLine(store.env)}mailroom: The secrets in the store are encrypted, but there is no key to open them: set MAILROOM_SECRET_KEY, or put the key file back at ${keyFile}\n`);
    assert.equal(existsSync(keyFile), false, 'no new key was made for a store that has one');
    writeFileSync(keyFile, keyText);
  });

  describe('mailroom secrets rotate', () => {
    it('re-encrypts every secret under a new key file (with Mailroom stopped); the secrets read the same and the old key opens nothing', async () => {
      const t = await appOn({}, { shareStoreWith: { storeEnv: store.env } as TestApp });
      const { hook, domain } = await webhookAndDomain(t);
      const before = await t.db.selectFrom('domains').select('dkim_private_key').where('id', '=', domain.id).executeTakeFirstOrThrow();
      const pem = createSecretBox(t.config.secretKey, DKIM_PRIVATE_KEY).open(before.dkim_private_key);
      const signedBefore = t.returnPaths.sign(newId('msg'), 0, 'mr-bounces.example.com');
      await t.close();
      const keyFile = join(store.dataDir, 'secret.key');
      const oldKey = readFileSync(keyFile, 'utf8');

      const res = mailroomCommand(['secrets', 'rotate'], store.env);
      assert.equal(res.status, 0, res.stderr);
      assert.match(res.stdout, new RegExp(`^Re-encrypted \\d+ secrets under the new key\\.\\nThe new key is in ${keyFile}\\. Back it up now`));
      const newKey = readFileSync(keyFile, 'utf8');
      assert.notEqual(newKey, oldKey);
      assert.equal(modeOf(keyFile), 0o600);
      assert.equal(existsSync(`${keyFile}.next`), false);

      const again = await appOn({}, { shareStoreWith: { storeEnv: store.env } as TestApp });
      try {
        const hookRow = await again.db.selectFrom('webhooks').select('secret').where('id', '=', hook.id).executeTakeFirstOrThrow();
        assert.equal(webhookSigningSecret(hookRow, again.config), hook.secret);
        assert.throws(() => webhookSigningSecret(hookRow, { secretKey: keyOf(oldKey) }), /could not be decrypted/);
        const after = await again.db.selectFrom('domains').select('dkim_private_key').where('id', '=', domain.id).executeTakeFirstOrThrow();
        assert.equal(createSecretBox(again.config.secretKey, DKIM_PRIVATE_KEY).open(after.dkim_private_key), pem);
        assert.equal(again.returnPaths.verify(signedBefore).ok, true, 'return paths already out are still honoured');
      } finally {
        await again.close();
      }
      assert.equal(serveThatFails({ ...store.env, MAILROOM_SECRET_KEY: oldKey.trim() }).status, 1, 'the old key no longer starts');
    });

    it('with MAILROOM_SECRET_KEY, asks for the new key in a file and re-encrypts under it; a start with it works', async () => {
      const fresh = await freshStore();
      try {
        const oldKey = randomBytes(32).toString('base64');
        const env = { ...fresh.env, MAILROOM_SECRET_KEY: oldKey };
        const t = await appOn(env);
        const { hook } = await webhookAndDomain(t);
        await t.close();
        const refused = mailroomCommand(['secrets', 'rotate'], env);
        assert.equal(refused.status, 1);
        assert.ok(refused.stderr.startsWith(`${storeLine(env)}mailroom: MAILROOM_SECRET_KEY is set, so the new key is yours to make and keep: give it with --new-key-file FILE`), refused.stderr);

        const newKey = randomBytes(32).toString('hex');
        const newKeyFile = join(fresh.dataDir, 'new.key');
        writeFileSync(newKeyFile, `${newKey}\n`);
        const res = mailroomCommand(['secrets', 'rotate', '--new-key-file', newKeyFile], env);
        assert.equal(res.status, 0, res.stderr);
        assert.match(res.stdout, /Set MAILROOM_SECRET_KEY to the new key for every Mailroom process/);
        assert.equal(existsSync(join(fresh.dataDir, 'secret.key')), false, 'no key file is made when the key is MAILROOM_SECRET_KEY');

        const again = await appOn({ ...fresh.env, MAILROOM_SECRET_KEY: newKey }, { shareStoreWith: { storeEnv: fresh.env } as TestApp });
        try {
          const row = await again.db.selectFrom('webhooks').select('secret').where('id', '=', hook.id).executeTakeFirstOrThrow();
          assert.equal(webhookSigningSecret(row, again.config), hook.secret);
        } finally {
          await again.close();
        }
        assert.equal(serveThatFails(env).status, 1, 'the old key no longer starts');
      } finally {
        await fresh.drop();
      }
    });

    it('throws away, at start, a next key a rotation left behind without committing', async () => {
      const next = join(store.dataDir, 'secret.key.next');
      mkdirSync(store.dataDir, { recursive: true });
      writeFileSync(next, randomBytes(32).toString('base64'));
      const key = readFileSync(join(store.dataDir, 'secret.key'), 'utf8');
      const t = await appOn({}, { shareStoreWith: { storeEnv: store.env } as TestApp });
      await t.close();
      assert.equal(existsSync(next), false);
      assert.equal(readFileSync(join(store.dataDir, 'secret.key'), 'utf8'), key);
    });
  });
});
