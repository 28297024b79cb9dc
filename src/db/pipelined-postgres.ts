import { CompiledQuery, PostgresDialect, PostgresDriver, type DatabaseConnection, type Driver, type PostgresDialectConfig, type QueryResult, type TransactionSettings } from 'kysely';
import { asConnectFailure, asStoreFailure } from './store-failure.js';

const BEGIN = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

const endingStatements = new WeakSet<CompiledQuery>();

/**
 * Marks `query` as the last statement of its transaction: on PostgreSQL, COMMIT is written right
 * behind it rather than one round trip later, and the transaction is over once it has run. Nothing
 * after it in the transaction may run a statement (one that tried would throw), and nothing after it
 * may fail: the commit has happened. Outside a transaction, and on SQLite, the mark does nothing.
 */
export function endsTransaction<Q extends CompiledQuery>(query: Q): Q {
  endingStatements.add(query);
  return query;
}

/**
 * A pooled connection that writes a transaction's BEGIN together with its first statement, and
 * its COMMIT together with a statement marked by endsTransaction. node-postgres' pipeline mode
 * sends a query without waiting for the answer to the one before; the answers still come back in
 * order, each statement behind its own Sync, so an error fails its own statement alone, and within
 * a transaction every later one (a COMMIT then rolls back, as PostgreSQL answers a COMMIT of a failed
 * transaction). What this saves is the wait between the answer and the next statement: on the
 * HTTP thread under load that wait is an event-loop turn, about a millisecond, and a batch of sends
 * spent four of them (BEGIN, its look-ups, its inserts, COMMIT) with a lock on its counter rows
 * held across the last (bench/README.md, issue 19).
 */
class PipelinedConnection implements DatabaseConnection {
  /** BEGIN, written and not yet answered: the next statement goes right behind it. */
  #begin: Promise<QueryResult<unknown>> | undefined;
  #inTransaction = false;
  /** A marked statement took COMMIT with it: the transaction is over. */
  #committed = false;

  constructor(readonly inner: DatabaseConnection) {}

  begin(): void {
    this.#inTransaction = true;
    this.#committed = false;
    const begin = this.inner.executeQuery(BEGIN);
    // Read by the next statement; a failure must not go unhandled meanwhile.
    begin.catch(() => undefined);
    this.#begin = begin;
  }

  /** The transaction's end: COMMIT or ROLLBACK, unless a marked statement has committed it already. */
  async end(query: CompiledQuery): Promise<void> {
    const committed = this.#committed;
    this.#inTransaction = false;
    this.#committed = false;
    if (!committed) await this.executeQuery(query);
  }

  /** A lost connection or a server going away fails the statement as StoreUnavailableError (store-failure.ts). */
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return await this.#execute<R>(query);
    } catch (error) {
      throw asStoreFailure(error);
    }
  }

  async #execute<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#committed) throw new Error('A statement after the one that ended its transaction (endsTransaction): it would run outside the transaction');
    const begin = this.#begin;
    this.#begin = undefined;
    const result = this.inner.executeQuery<R>(query);
    const commit = this.#inTransaction && endingStatements.has(query) ? this.inner.executeQuery(COMMIT) : undefined;
    if (commit) {
      this.#committed = true;
      commit.catch(() => undefined);
    }
    result.catch(() => undefined);
    if (begin) await begin;
    try {
      return await result;
    } finally {
      // Answered after the statement: its rollback, should the statement have failed, is done too.
      if (commit) await commit;
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * Kysely's PostgreSQL driver, its connections pipelined (PipelinedConnection). The pool must have `pipeline: true`.
 * A connection that cannot be had fails as StoreUnavailableError: the store is out of reach, whatever the reason.
 */
class PipelinedPostgresDriver extends PostgresDriver {
  readonly #wrapped = new WeakMap<DatabaseConnection, PipelinedConnection>();

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection().catch((error: unknown) => {
      throw asConnectFailure(error);
    });
    let connection = this.#wrapped.get(inner);
    if (!connection) {
      connection = new PipelinedConnection(inner);
      this.#wrapped.set(inner, connection);
    }
    return connection;
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await super.releaseConnection((connection as PipelinedConnection).inner as Parameters<PostgresDriver['releaseConnection']>[0]);
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    // `start transaction …` with settings (the snapshots) is rare enough to wait for.
    if (settings.isolationLevel || settings.accessMode) return super.beginTransaction(connection, settings);
    (connection as PipelinedConnection).begin();
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PipelinedConnection).end(COMMIT);
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PipelinedConnection).end(ROLLBACK);
  }
}

/** PostgresDialect with pipelined transactions (see PipelinedConnection). */
export class PipelinedPostgresDialect extends PostgresDialect {
  readonly #config: PostgresDialectConfig;

  constructor(config: PostgresDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new PipelinedPostgresDriver(this.#config);
  }
}
