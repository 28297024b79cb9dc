import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fchmodSync, fsyncSync, linkSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** The data dir: only its owner may list or enter it. */
export const PRIVATE_DIR_MODE = 0o700;
/** The store's files and the key file: only their owner may read them. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Sets `mode` on a path that may exist. Only an existing path's owner may
 * change its mode: a path owned by someone else (a layout the operator chose,
 * such as a group-shared directory) is left as it is rather than stopping the
 * start. A path that is not there is nothing to do.
 */
export function tightenMode(path: string, mode: number): void {
  try {
    chmodSync(path, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EPERM') throw error;
  }
}

/** Creates the directory (and its parents) if absent, and makes it 0700 whatever the umask. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  tightenMode(dir, PRIVATE_DIR_MODE);
}

/**
 * Creates the file empty if absent (0600 from its first moment, whatever the
 * umask), or makes an existing one 0600. SQLite then gives its -wal and -shm
 * files the database file's mode.
 */
export function ensurePrivateFile(path: string): void {
  const fd = openSync(path, 'a', PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `content` to a new file at `path`, 0600, all at once: it is written
 * under a temporary name and linked into place, so nobody ever reads it half
 * written, and of two processes writing the same path at once exactly one
 * wins. Returns false, writing nothing, when `path` exists.
 */
export function writePrivateFileOnce(path: string, content: string): boolean {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
    writeSync(fd, content);
    // On disk before anything is encrypted with it: a key lost to a power cut would lose what it encrypted.
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, path);
    syncDir(dirname(path));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
}

/** Makes a new name in `dir` durable (Linux: fsync of the directory). */
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
