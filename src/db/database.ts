import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

/**
 * Opens the store named by the configuration. Today that is the embedded
 * SQLite file; a PostgreSQL dialect slots in here and nowhere else.
 */
export function openDatabase(config: Pick<Config, 'dataDir'>): Db {
  mkdirSync(config.dataDir, { recursive: true });
  const sqlite = new SQLite(join(config.dataDir, 'mailroom.db'));
  // WAL lets readers run beside the writer; NORMAL syncs at checkpoints, so a
  // committed transaction survives a process crash (not a power cut).
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
}

/** Distinct SQL texts are few (one per query shape), but bound the cache all the same. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every query anew; compiling the SQL costs
 * more than running it. Statements are reused per SQL text. better-sqlite3 runs
 * each one synchronously to completion, so one statement is never in use twice.
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (!statement) {
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
        statement = sqlite.prepare(sql);
        cache.set(sql, statement);
      }
      return statement as unknown as SqliteStatement;
    },
  };
}
