import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { isLockBusy, LOCK_WAIT_MS, lockWaitFor, type LockWait } from './sqlite-lock-wait.js';
import { asStoreFailure } from './store-failure.js';

/** Distinct SQL texts are few (one per query shape), but bound the cache all the same. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite dialect over better-sqlite3, with two changes that matter
 * under concurrent load:
 * - the one connection is handed over in FIFO order, one waiter woken per
 *   release (Kysely's own mutex wakes every waiter on every release, which is
 *   quadratic in the number of queued requests);
 * - statements are prepared once per SQL text and reused (Kysely prepares each
 *   query anew, and compiling SQL costs more than running a point query);
 * - a statement that finds another connection's lock is tried again after a
 *   wait of this code's (sqlite-lock-wait.ts), not SQLite's busy handler: on
 *   the thread that answers HTTP the wait yields to the event loop, on worker
 *   threads it is a fine-grained block.
 * Adapter, query compiler and introspector are Kysely's own.
 */
export class BetterSqliteDialect implements Dialect {
  #driver: BetterSqliteDriver | undefined;
  /** `background`: this connection's writes give way to others' (sqlite-lock-wait.ts, patientLockWait). */
  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly background = false,
  ) {}
  createAdapter() {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    this.#driver = new BetterSqliteDriver(this.sqlite, lockWaitFor(this.background));
    return this.#driver;
  }
  /** The one connection as a pool of one, for the metrics: whether it is held, and how many queries wait for it. */
  use(): { total: number; idle: number; waiting: number } {
    const held = this.#driver?.held ?? false;
    return { total: 1, idle: held ? 0 : 1, waiting: this.#driver?.waiting ?? 0 };
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}

class BetterSqliteDriver implements Driver {
  readonly #sqlite: SQLite.Database;
  readonly #connection: BetterSqliteConnection;
  /** Settles when the current holder releases the connection; each waiter chains on its predecessor. */
  #tail: Promise<void> = Promise.resolve();
  #releaseHolder: (() => void) | undefined;
  waiting = 0;
  held = false;

  constructor(sqlite: SQLite.Database, lockWait: LockWait) {
    this.#sqlite = sqlite;
    this.#connection = new BetterSqliteConnection(sqlite, lockWait);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.waiting++;
    await previous;
    this.waiting--;
    this.held = true;
    this.#releaseHolder = release;
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    const release = this.#releaseHolder;
    this.#releaseHolder = undefined;
    this.held = false;
    release?.();
  }

  /**
   * Read-only transactions begin deferred: a snapshot, no lock. Others begin
   * IMMEDIATE, taking the write lock up front (waiting for it as any statement does):
   * a deferred one that read first would fail with SQLITE_BUSY_SNAPSHOT if
   * another connection (the send writer thread, the CLI) committed before its
   * first write.
   */
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(settings.accessMode === 'read only' ? 'begin' : 'begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLITE_FULL, SQLITE_IOERR and SQLITE_BUSY may have rolled the transaction back already; a ROLLBACK then
    // would fail ("no transaction is active") and hide the error that says why.
    if (!this.#sqlite.inTransaction) return;
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    this.#sqlite.close();
  }
}

class BetterSqliteConnection implements DatabaseConnection {
  readonly #sqlite: SQLite.Database;
  readonly #statements = new Map<string, SQLite.Statement>();
  readonly #lockWait: LockWait;

  constructor(sqlite: SQLite.Database, lockWait: LockWait) {
    this.#sqlite = sqlite;
    this.#lockWait = lockWait;
  }

  #prepare(sql: string): SQLite.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.clear();
      statement = this.#sqlite.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs the statement; should another connection hold the lock it needs, tries again after a wait, for
   * LOCK_WAIT_MS in all. A statement that failed with SQLITE_BUSY did nothing: a BEGIN IMMEDIATE or a
   * statement outside a transaction took no lock, and inside an IMMEDIATE transaction none is needed.
   * A lock held past the wait, a full disk or a failing one fails as a typed error (store-failure.ts).
   */
  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    let statement: SQLite.Statement;
    try {
      statement = this.#prepare(compiledQuery.sql);
    } catch (error) {
      // Preparing reads the schema: a failing disk shows here first.
      throw asStoreFailure(error);
    }
    const parameters = compiledQuery.parameters as unknown[];
    for (let attempt = 0, waitedMs = 0; ; attempt++) {
      try {
        if (statement.reader) return { rows: statement.all(parameters) as R[] };
        const { changes, lastInsertRowid } = statement.run(parameters);
        return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
      } catch (error) {
        if (!isLockBusy(error) || waitedMs >= LOCK_WAIT_MS) throw asStoreFailure(error);
        waitedMs += await this.#lockWait(attempt);
      }
    }
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const statement = this.#prepare(compiledQuery.sql);
    if (!statement.reader) throw new Error('Only queries that return rows can be streamed');
    for (const row of statement.iterate(compiledQuery.parameters as unknown[])) yield { rows: [row as R] };
  }
}
