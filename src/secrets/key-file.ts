import { randomBytes, type KeyObject } from 'node:crypto';
import { readFileSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config.js';
import { secretKeyFromText } from '../lib/config-values.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE, syncDir, tightenMode, writePrivateFileOnce } from '../lib/private-files.js';

/** The key file's name in MAILROOM_DATA_DIR: the key when MAILROOM_SECRET_KEY is not set. */
export const KEY_FILE_NAME = 'secret.key';

export function keyFileOf(dataDir: string): string {
  return join(dataDir, KEY_FILE_NAME);
}

/** Where `secrets rotate` puts the new key until the store is re-encrypted under it (see finishRotation). */
export function nextKeyFileOf(dataDir: string): string {
  return `${keyFileOf(dataDir)}.next`;
}

/** The key a file holds (as MAILROOM_SECRET_KEY is written: base64 or hex, one line), or undefined when there is no file. */
export function readKeyFile(path: string): KeyObject | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`Cannot read the secret key file ${path}: ${(error as Error).message}`);
  }
  const key = secretKeyFromText(text);
  if (!key) throw new ConfigError(`The secret key file ${path} does not hold a key: 32 bytes as base64 or 64 hex digits`);
  tightenMode(path, PRIVATE_FILE_MODE);
  return key;
}

/** A new key, as the key file and MAILROOM_SECRET_KEY hold it. */
export function newKeyText(): string {
  return `${randomBytes(32).toString('base64')}\n`;
}

/**
 * The data dir's key, made now if there is none. Two processes starting at
 * once on one data dir both end with the key the first one wrote.
 */
export function readOrCreateKeyFile(dataDir: string): { key: KeyObject; created: boolean } {
  const path = keyFileOf(dataDir);
  const existing = readKeyFile(path);
  if (existing) return { key: existing, created: false };
  ensurePrivateDir(dataDir);
  const created = writePrivateFileOnce(path, newKeyText());
  return { key: readKeyFile(path)!, created };
}

/** Writes the next key beside the key file, where a start finds it if the rotation was cut short. */
export function writeNextKeyFile(dataDir: string, text: string): void {
  const path = nextKeyFileOf(dataDir);
  unlinkIfPresent(path);
  if (!writePrivateFileOnce(path, text)) throw new Error(`${path} appeared while it was being written`);
}

/** The next key becomes the key file (the store is encrypted under it now). */
export function promoteNextKeyFile(dataDir: string): void {
  renameSync(nextKeyFileOf(dataDir), keyFileOf(dataDir));
  syncDir(dataDir);
}

export function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
