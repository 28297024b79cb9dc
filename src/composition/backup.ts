import { existsSync, renameSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { ConfigError, type Config } from '../config.js';
import { sqliteFileOf, storeKindOf } from '../db/database.js';
import { ConflictError, NotFoundError } from '../lib/errors.js';
import { createStore } from './store.js';
import { openReachableDatabase } from './store-runtime.js';
import { ensurePrivateFile, syncDir, writePrivateFileOnce } from '../lib/private-files.js';
import { keyFileOf, readKeyFile, unlinkIfPresent, KEY_CHECK_NAME, opensKeyCheck } from '../secrets/index.js';

export interface BackupResult {
  /** The copy of the store. */
  file: string;
  /** The copy of the data dir's key file beside it (`FILE.key`); undefined when the key is MAILROOM_SECRET_KEY. */
  keyFile: string | undefined;
  pages: number;
}

/** Pages copied per step after the first: all of them, so the copy is one read of one snapshot (see below). */
const ALL_PAGES = 0x7fffffff;

/**
 * `mailroom backup --to FILE`: a consistent copy of the embedded store while
 * Mailroom serves, by SQLite's online backup API, to FILE, and the data dir's
 * key file to FILE.key (both 0600); restoring is copying them back as
 * `mailroom.db` and `secret.key` of a data dir. The backup API restarts its
 * copy whenever another connection writes between two of its steps, which
 * under steady sending could go on for ever; copying every page in one step
 * reads one snapshot, which under WAL does not hold writers up. With
 * MAILROOM_SECRET_KEY the key is the operator's to keep and is not written.
 * Refuses to overwrite anything, and refuses a key that does not open the
 * store's secrets: such a backup could not be read back. `copying` is told the store's file once
 * every check has passed, before a byte is copied.
 */
export async function backupStore(config: Config, to: string, copying: (source: string) => void = () => {}): Promise<BackupResult> {
  if (storeKindOf(config) === 'postgres') {
    throw new ConfigError('mailroom backup copies the embedded SQLite store; with DATABASE_URL, back PostgreSQL up with pg_dump (docs/secrets-and-backups.md) and keep MAILROOM_SECRET_KEY with it');
  }
  const source = sqliteFileOf(config.dataDir);
  if (!existsSync(source)) throw new NotFoundError(`There is no store to back up at ${source} (MAILROOM_DATA_DIR)`);
  const file = resolve(to);
  const keyFile = config.secretKey ? undefined : `${file}.key`;
  for (const path of [file, keyFile]) if (path && existsSync(path)) throw new ConflictError(`${path} exists: mailroom backup does not overwrite`);
  const keyText = await checkedKeyText(config);
  copying(source);

  const partial = `${file}.partial`;
  unlinkIfPresent(partial);
  // Made 0600 before a byte is copied into it.
  ensurePrivateFile(partial);
  const sqlite = new SQLite(source, { fileMustExist: true });
  let pages: number;
  try {
    sqlite.pragma('busy_timeout = 5000');
    ({ totalPages: pages } = await sqlite.backup(partial, { progress: () => ALL_PAGES }));
  } catch (error) {
    unlinkIfPresent(partial);
    throw error;
  } finally {
    sqlite.close();
  }
  renameSync(partial, file);
  if (keyFile && keyText) writePrivateFileOnce(keyFile, keyText);
  syncDir(dirname(file));
  return { file, keyFile: keyText ? keyFile : undefined, pages };
}

/** The key file's text when the key is the data dir's, after checking that the key opens the store's secrets. */
async function checkedKeyText(config: Config): Promise<string | undefined> {
  const key = config.secretKey ?? readKeyFile(keyFileOf(config.dataDir));
  const db = await openReachableDatabase(config);
  try {
    const check = await createStore(db).serverSecrets.find(KEY_CHECK_NAME);
    if (check && (!key || !opensKeyCheck(key, check.value))) {
      const source = config.secretKey ? 'MAILROOM_SECRET_KEY' : keyFileOf(config.dataDir);
      throw new ConfigError(`${key ? `${source} is not the key` : `There is no key (${source}) of`} the secrets in the store: a backup without it could not be read back`);
    }
  } finally {
    await db.destroy();
  }
  return key && !config.secretKey ? `${key.export().toString('base64')}\n` : undefined;
}

/** What `mailroom backup` prints: where the copies are, and where the key is when it is not among them. */
export function backupReport({ file, keyFile, pages }: BackupResult): string {
  const key = keyFile
    ? `Its key: ${keyFile}. Keep the two together to restore, and apart from where the copy could be read by others: together they open every DKIM key and webhook secret.`
    : 'Its key is MAILROOM_SECRET_KEY, not written here: keep it with the backup, or the secrets in it cannot be read.';
  return `Backed up the store to ${file} (${pages} pages).\n${key}\n`;
}
