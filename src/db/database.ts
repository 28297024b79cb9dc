import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from './schema.js';
import { BetterSqliteDialect } from './sqlite-dialect.js';

export type Db = Kysely<Database>;

/**
 * Opens the store named by the configuration. Today that is the embedded
 * SQLite file; a PostgreSQL dialect slots in here and nowhere else.
 */
export function openDatabase(config: Pick<Config, 'dataDir'>): Db {
  mkdirSync(config.dataDir, { recursive: true });
  const sqlite = new SQLite(join(config.dataDir, 'mailroom.db'));
  // WAL lets readers run beside the writer. FULL syncs the WAL at every
  // commit: a 200 means the send survives a power cut, not just a process
  // crash (DESIGN.md §3). Sends are committed in batches, so that is one fsync
  // per batch; NORMAL measured about 20 % faster and was refused for this.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  // Another process (the CLI beside a running server) may hold the write lock
  // for a moment; wait for it rather than fail. The driver is synchronous, so
  // the wait blocks this process: fine for short CLI writes, the only ones there are.
  sqlite.pragma('busy_timeout = 5000');
  // A 64 MiB page cache and checkpoints every ~40 MiB of WAL: hot index pages
  // are written back once per checkpoint, not once per few hundred sends.
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('wal_autocheckpoint = 10000');
  return new Kysely<Database>({ dialect: new BetterSqliteDialect(sqlite) });
}
