import type { KeyObject } from 'node:crypto';
import { resolve } from 'node:path';
import { ConfigError, type Config } from '../config.js';
import { secretKeyFromText } from '../lib/config-values.js';
import { createStore } from './store.js';
import { openMigratedDatabase } from './store-runtime.js';
import type { Repositories } from '../db/store.js';
import { createSecretBox, SecretBoxError } from '../lib/secret-box.js';
import { newKeyText, promoteNextKeyFile, readKeyFile, unlinkIfPresent, nextKeyFileOf, writeNextKeyFile, KEY_CHECK_NAME, keyCheckValue, openSecretKey, type StoredSecret } from '../secrets/index.js';

export interface RotationResult {
  /** Secrets now sealed under the new key. */
  resealed: number;
  /** Secrets the current key could not open (sealed under some other key): left as they were. */
  unreadable: StoredSecret[];
  /** The key file that now holds the new key, when the key is the data dir's; undefined with MAILROOM_SECRET_KEY. */
  keyFile: string | undefined;
}

/**
 * `mailroom secrets rotate`: every secret at rest re-encrypted under a new
 * key, in one transaction, with Mailroom stopped (a running process keeps the
 * old key in memory). The current key is the one a start would take, checked
 * as a start checks it. The new key is read from `newKeyFile` when given;
 * without it, one is made, which only works when the key is the data dir's
 * key file: MAILROOM_SECRET_KEY lives where the operator keeps it, so they
 * make the new one (`--new-key-file`) and set it themselves.
 *
 * The data dir's key file is replaced only once the store is committed under
 * the new key; until then the new key waits beside it (`secret.key.next`),
 * where a start finds it if the rotation was cut short (secret-key.ts).
 */
export async function rotateSecrets(config: Config, newKeyFile: string | undefined): Promise<RotationResult> {
  const db = await openMigratedDatabase(config);
  try {
    const store = createStore(db);
    const current = await openSecretKey(store, config);
    const fromEnv = config.secretKey !== undefined;
    if (fromEnv && newKeyFile === undefined) {
      throw new ConfigError(
        'MAILROOM_SECRET_KEY is set, so the new key is yours to make and keep: give it with --new-key-file FILE (for instance after openssl rand -base64 32 > FILE)',
      );
    }
    const next = newKeyFile === undefined ? madeKey() : givenKey(newKeyFile);
    if (next.key.equals(current.key)) throw new ConfigError('The new key is the current key: give another one');
    if (!fromEnv) writeNextKeyFile(config.dataDir, next.text);
    let result: Omit<RotationResult, 'keyFile'>;
    try {
      result = await store.transaction((repos) => reseal(repos, current.key, next.key));
    } catch (error) {
      if (!fromEnv) unlinkIfPresent(nextKeyFileOf(config.dataDir));
      throw error;
    }
    if (!fromEnv) promoteNextKeyFile(config.dataDir);
    return { ...result, keyFile: fromEnv ? undefined : current.source };
  } finally {
    await db.destroy();
  }
}

async function reseal(repos: Repositories, from: KeyObject, to: KeyObject): Promise<Omit<RotationResult, 'keyFile'>> {
  let resealed = 0;
  const unreadable: StoredSecret[] = [];
  for (const secret of await repos.storedSecrets.list()) {
    let clear: string;
    try {
      clear = createSecretBox(from, secret.purpose).open(secret.value);
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      unreadable.push(secret);
      continue;
    }
    if (await repos.storedSecrets.replace(secret, createSecretBox(to, secret.purpose).seal(clear))) resealed += 1;
  }
  await repos.serverSecrets.update(KEY_CHECK_NAME, keyCheckValue(to));
  return { resealed, unreadable };
}

function madeKey(): { key: KeyObject; text: string } {
  const text = newKeyText();
  return { key: secretKeyFromText(text)!, text };
}

function givenKey(path: string): { key: KeyObject; text: string } {
  const file = resolve(path);
  const key = readKeyFile(file);
  if (!key) throw new ConfigError(`--new-key-file: there is no file ${file}`);
  return { key, text: `${key.export().toString('base64')}\n` };
}

/** What `mailroom secrets rotate` prints: what changed, and what the operator must do now. */
export function rotationReport({ resealed, unreadable, keyFile }: RotationResult): string {
  const lines = [`Re-encrypted ${resealed} secret${resealed === 1 ? '' : 's'} under the new key.`];
  if (unreadable.length > 0) {
    const named = unreadable.map((s) => `${s.purpose.name} ${s.id}`).join(', ');
    lines.push(`Left as they were, as the current key does not open them: ${named} (a webhook's: rotate its secret; a domain's: add the domain again; an upstream's: give its password or secret access key again).`);
  }
  lines.push(
    keyFile
      ? `The new key is in ${keyFile}. Back it up now (mailroom backup): the old key opens nothing any more. Then start Mailroom.`
      : 'Set MAILROOM_SECRET_KEY to the new key for every Mailroom process, then start them: the old key opens nothing any more. Delete the key file once it is kept where MAILROOM_SECRET_KEY comes from.',
  );
  return `${lines.join('\n')}\n`;
}
