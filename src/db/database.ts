import { accessSync, constants, mkdirSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresAdapter, sql } from 'kysely';
import { createRequire } from 'node:module';
import type pg from 'pg';
import { ConfigError, type Config } from '../config.js';
import { ensurePrivateDir, ensurePrivateFile, PRIVATE_FILE_MODE, tightenMode } from '../lib/private-files.js';
import { PipelinedPostgresDialect } from './pipelined-postgres.js';
import { usePreparedStatements } from './postgres-statements.js';
import type { Database } from './schema.js';
import { BetterSqliteDialect } from './sqlite-dialect.js';
import { sqliteFileOf } from './sqlite-file.js';

export type Db = Kysely<Database>;

/** A store or service named by the configuration did not answer at start-up; the message names the variable. */
export class UnreachableError extends Error {
  override name = 'UnreachableError';
}

/** Which store a configuration opens: the embedded SQLite file, or PostgreSQL when DATABASE_URL is set. */
export type StoreKind = 'sqlite' | 'postgres';

export function storeKindOf(config: Pick<Config, 'databaseUrl'>): StoreKind {
  return config.databaseUrl ? 'postgres' : 'sqlite';
}

/** Which store an open database is, for the few statements whose SQL must differ (see docs/architecture.md). */
export function storeKindOfDb(db: Kysely<any>): StoreKind {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** A store's connections now: the PostgreSQL pool's, or the embedded store's one connection (see sqlite-dialect.ts). */
export interface PoolUse {
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

const poolUses = new WeakMap<Db, () => PoolUse>();

/** How the store's connections are used now (for the metrics). */
export function poolUseOf(db: Db): PoolUse | undefined {
  return poolUses.get(db)?.();
}

/** Opens the store the configuration names. Every difference between the two starts here. */
export function openDatabase(
  config: Pick<Config, 'dataDir' | 'databaseUrl' | 'databasePoolSize' | 'databaseStatementTimeoutMs'>,
  sqliteOptions: SqliteOptions = {},
): Db {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, config, { asynchronousCommit: sqliteOptions.synchronous === 'NORMAL' });
  try {
    return openSqlite(config.dataDir, sqliteOptions);
  } catch (error) {
    // mkdir's EACCES, or SQLite's "unable to open database file" in a directory this user cannot write: the fix is the directory.
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const denied = code === 'EACCES' || code === 'EPERM' || (code.startsWith('SQLITE_') && !isWritable(config.dataDir));
    const why = denied ? 'permission denied' : (error as Error).message;
    throw new ConfigError(`Cannot use MAILROOM_DATA_DIR ${config.dataDir}: ${why} (it must be a directory this user can write, or one it can create)`, { cause: error });
  }
}

function isWritable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** One round trip to the store; throws if it cannot be reached. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

export { sqliteFileOf };

/**
 * `wal_autocheckpoint` of a process whose WAL a checkpointer thread copies
 * back (see wal-checkpointer.ts). A WAL starts over at a write transaction
 * that begins when every frame has been copied and no reader holds an older
 * snapshot; under steady writing a background checkpoint rarely ends just
 * before one, so the WAL would grow. The writers still checkpoint at this size
 * (16 MiB), find all but the last ~100 ms of frames copied, and their next
 * write starts the WAL over.
 */
export const SQLITE_WRITER_CHECKPOINT_PAGES = 4096;

export interface SqliteOptions {
  /** A checkpointer thread copies the WAL back: the connection's own checkpoints find little left to copy. */
  backgroundCheckpoints?: boolean;
  /**
   * FULL (the default) syncs the WAL at every commit. NORMAL, for the worker's connection only, does not:
   * its commits survive any process crash, and after a power cut the last moments of claims and outcomes
   * may be rolled back, whose messages are then delivered again (at least once, as after any crash). Its
   * commits then hold the write lock for microseconds instead of an fsync, which the send writer waits for.
   * On PostgreSQL, NORMAL is `synchronous_commit = off` for the pool's sessions, the same trade: a commit
   * is answered before the server has flushed its WAL, and a crash of the server (not of Mailroom) may
   * lose the last fraction of a second of them, never corrupt anything.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /**
   * Background work (the delivery worker): waiting for the write lock, it gives way to the connections
   * whose writes answer requests (sqlite-lock-wait.ts).
   */
  background?: boolean;
  /**
   * Temporary files in memory (`temp_store = MEMORY`), statement journals among them, for the send
   * writer's connection. Each multi-row INSERT inside a transaction keeps a journal of the pages it changes,
   * to undo that statement alone should it fail; past 64 KiB SQLite spills it to a temporary file, and a
   * batch of sends did so at every statement (18 MB of file writes in 3 s of bench:send). In memory, those
   * INSERTs took about half as long. It stays off elsewhere: there a large sort may be what goes to disk.
   */
  memoryTempStore?: boolean;
}

/**
 * The data dir 0700 and the store's files 0600, whatever the umask: made so
 * when they are created, and made so again at every start, for a data dir
 * an older version created readable by everyone (private-files.ts).
 */
export function securePrivateStore(dataDir: string): void {
  ensurePrivateDir(dataDir);
  const file = sqliteFileOf(dataDir);
  ensurePrivateFile(file);
  // SQLite creates these with the database file's mode; ones left by an older version may be wider.
  for (const suffix of ['-wal', '-shm']) tightenMode(`${file}${suffix}`, PRIVATE_FILE_MODE);
}

export function openSqlite(dataDir: string, { backgroundCheckpoints = false, synchronous = 'FULL', background = false, memoryTempStore = false }: SqliteOptions = {}): Db {
  securePrivateStore(dataDir);
  const sqlite = new SQLite(sqliteFileOf(dataDir));
  // WAL lets readers run beside the writer. FULL syncs the WAL at every
  // commit: a 200 means the send survives a power cut, not just a process
  // crash (DESIGN.md §3). Sends are committed in batches, so that is one fsync
  // per batch; NORMAL measured about 20 % faster and was refused for this
  // (the worker's own connection may take it: SqliteOptions.synchronous).
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`synchronous = ${synchronous}`);
  sqlite.pragma('foreign_keys = ON');
  if (memoryTempStore) sqlite.pragma('temp_store = MEMORY');
  // Other connections (the send writer thread, the delivery thread, the CLI)
  // hold the write lock for a moment at a time. The dialect waits for it
  // (sqlite-lock-wait.ts): SQLite's own busy handler would block the calling
  // thread, the one answering HTTP among them, in sleeps of 1, 2, 5, 10 … ms.
  sqlite.pragma('busy_timeout = 0');
  // A 64 MiB page cache. Without a checkpointer thread, checkpoints every
  // ~40 MiB of WAL: hot index pages are written back once per checkpoint, not
  // once per few hundred sends, at the price of a long copy inside one commit.
  // With it, pages are copied back every 100 ms (more copies of the same hot
  // pages, off the writers' path) and the writers' own checkpoint is small.
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma(`wal_autocheckpoint = ${backgroundCheckpoints ? SQLITE_WRITER_CHECKPOINT_PAGES : 10_000}`);
  const dialect = new BetterSqliteDialect(sqlite, background);
  const db = new Kysely<Database>({ dialect });
  poolUses.set(db, () => dialect.use());
  return db;
}

/** How long a new pool connection may take before the request that needed it fails. */
const POSTGRES_CONNECT_TIMEOUT_MS = 5_000;

/** Loaded on the first PostgreSQL store: the embedded default never needs pg (some 4 MB of heap); a synchronous require keeps openDatabase synchronous. */
const loadPg = () => createRequire(import.meta.url)('pg') as typeof pg;

function openPostgres(url: string, config: Pick<Config, 'databasePoolSize' | 'databaseStatementTimeoutMs'>, { asynchronousCommit = false } = {}): Db {
  const pool = new (loadPg().Pool)({
    connectionString: url,
    max: config.databasePoolSize,
    connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
    ...(config.databaseStatementTimeoutMs > 0 ? { statement_timeout: config.databaseStatementTimeoutMs } : {}),
    // SqliteOptions.synchronous: the worker's commits, at least once by nature, wait for no WAL flush.
    ...(asynchronousCommit ? { options: '-c synchronous_commit=off' } : {}),
    // A transaction's BEGIN and COMMIT ride with its statements (pipelined-postgres.ts).
    pipeline: true,
  });
  // An idle client whose server went away emits here; without a listener that would end the process.
  // The pool drops that client and the next query opens a new one.
  pool.on('error', () => {});
  // pg-pool listens for a client's errors only while it is idle: a server that goes away under a checked-out
  // client (pg_terminate_backend, a restart) would emit 'error' with no listener, and that ends the process.
  // The client's queries fail with that error anyway, and the pool drops the client once it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  usePreparedStatements(pool);
  const db = new Kysely<Database>({ dialect: new PipelinedPostgresDialect({ pool }) });
  poolUses.set(db, () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }));
  return db;
}
