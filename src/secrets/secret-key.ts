import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import type { Repositories, Store } from '../db/store.js';
import { createSecretBox, isSealed, KEY_CHECK, SecretBoxError } from '../lib/secret-box.js';
import { ensurePrivateDir } from '../lib/private-files.js';
import type { StoredSecret } from './stored-secrets-repository.js';
import { keyFileOf, nextKeyFileOf, promoteNextKeyFile, readKeyFile, readOrCreateKeyFile, unlinkIfPresent } from './key-file.js';

/** The `server_secrets` row that holds KEY_CHECK_TEXT sealed under the installation's key. */
export const KEY_CHECK_NAME = 'secret_key_check';
const KEY_CHECK_TEXT = 'mailroom secret key';

/**
 * The installation's key will not open the secrets stored (or there is none
 * to open them with). A ConfigError: start-up stops with this one line, which
 * names where the key came from and never shows it.
 */
export class SecretKeyError extends ConfigError {
  override name = 'SecretKeyError';
}

/** The key secrets are sealed with, and where it came from. */
export interface SecretKey {
  key: KeyObject;
  /** `MAILROOM_SECRET_KEY`, or the key file's path: how messages name it. */
  source: string;
  /** Made by this start (a first start without MAILROOM_SECRET_KEY): the caller warns that it must be backed up. */
  created: boolean;
}

/** The sealed check value of a key, as stored under KEY_CHECK_NAME. */
export function keyCheckValue(key: KeyObject): string {
  return createSecretBox(key, KEY_CHECK).seal(KEY_CHECK_TEXT);
}

/** Whether `key` opens a stored check value. */
export function opensKeyCheck(key: KeyObject, stored: string): boolean {
  try {
    return createSecretBox(key, KEY_CHECK).open(stored) === KEY_CHECK_TEXT;
  } catch (error) {
    if (error instanceof SecretBoxError) return false;
    throw error;
  }
}

/**
 * The installation's key, checked against the store: MAILROOM_SECRET_KEY, or
 * else the data dir's key file, made on a first start. Throws SecretKeyError
 * when the key is not the one the stored secrets were sealed with, and when
 * there is no key but sealed secrets (a store restored without its key file).
 * Then seals the secrets still stored in clear (from versions that stored
 * them so): after this, every secret at rest is encrypted under the key.
 */
export async function openSecretKey(store: Store, config: Pick<Config, 'secretKey' | 'dataDir'>): Promise<SecretKey> {
  const check = await store.serverSecrets.find(KEY_CHECK_NAME);
  const file = keyFileOf(config.dataDir);
  let secretKey: SecretKey;
  if (config.secretKey) {
    secretKey = { key: config.secretKey, source: 'MAILROOM_SECRET_KEY', created: false };
  } else {
    // On PostgreSQL the data dir holds nothing else, and nothing else made it private.
    ensurePrivateDir(config.dataDir);
    if (check) finishRotation(config.dataDir, check.value);
    const existing = readKeyFile(file);
    if (!existing && (check || (await anySealed(store)))) {
      throw new SecretKeyError(
        `The secrets in the store are encrypted, but there is no key to open them: set MAILROOM_SECRET_KEY, or put the key file back at ${file}`,
      );
    }
    const { key, created } = existing ? { key: existing, created: false } : readOrCreateKeyFile(config.dataDir);
    secretKey = { key, source: file, created };
  }
  await checkKey(store, secretKey, check?.value);
  await sealClearSecrets(store, secretKey.key);
  return secretKey;
}

/** Throws SecretKeyError unless the key opens the store's check value (written now by the first start that has none). */
async function checkKey(store: Store, { key, source }: SecretKey, stored: string | undefined): Promise<void> {
  const wrong = () =>
    new SecretKeyError(`${source} is not the key the secrets in the store were encrypted with: give the key they were encrypted with (the store's backup key file, or the MAILROOM_SECRET_KEY of its other processes)`);
  if (stored === undefined) {
    // Secrets sealed before the check value existed (MAILROOM_SECRET_KEY set on an earlier version) must open too.
    const sample = (await store.storedSecrets.list()).find((secret) => isSealed(secret.value));
    if (sample && !opens(key, sample)) throw wrong();
    await store.serverSecrets.insertIfAbsent({ name: KEY_CHECK_NAME, value: keyCheckValue(key), created_at: new Date().toISOString() });
    // Another process may have written its own first: the one written is the one that counts.
    stored = (await store.serverSecrets.find(KEY_CHECK_NAME))!.value;
  }
  if (!opensKeyCheck(key, stored)) throw wrong();
}

function opens(key: KeyObject, secret: StoredSecret): boolean {
  try {
    createSecretBox(key, secret.purpose).open(secret.value);
    return true;
  } catch (error) {
    if (error instanceof SecretBoxError) return false;
    throw error;
  }
}

async function anySealed(store: Store): Promise<boolean> {
  return (await store.storedSecrets.list()).some((secret) => isSealed(secret.value));
}

/** Seals every secret still stored in clear, in one transaction. */
async function sealClearSecrets(store: Store, key: KeyObject): Promise<void> {
  const clear = (await store.storedSecrets.list()).filter((secret) => !isSealed(secret.value));
  if (clear.length === 0) return;
  await store.transaction(async (repos: Repositories) => {
    for (const secret of clear) await repos.storedSecrets.replace(secret, createSecretBox(key, secret.purpose).seal(secret.value));
  });
}

/**
 * A `secrets rotate` cut short leaves the new key beside the key file: if
 * the store was re-encrypted under it (its check value opens), it becomes the
 * key file now; if not, the rotation never committed and it is thrown away.
 */
function finishRotation(dataDir: string, storedCheck: string): void {
  const next = nextKeyFileOf(dataDir);
  if (!existsSync(next)) return;
  const key = readKeyFile(next);
  if (key && opensKeyCheck(key, storedCheck)) promoteNextKeyFile(dataDir);
  else unlinkIfPresent(next);
}
