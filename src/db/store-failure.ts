import { StoreFullError, StoreUnavailableError } from '../lib/errors.js';

/**
 * Which store errors mean the store is away or out of room, rather than that
 * the statement is wrong. The drivers (pipelined-postgres.ts, sqlite-dialect.ts)
 * turn those into StoreUnavailableError or StoreFullError as they throw them,
 * so every caller, and the one error handler, sees a typed 503; anything else
 * (a constraint, a syntax error, a cancelled statement) stays what it is: a
 * bug or a timeout, answered 500.
 */

/** SQLSTATEs of a server that is going away, gone, refusing sessions or short of resources (PostgreSQL, appendix A). */
const POSTGRES_AWAY = new Set([
  // admin_shutdown (pg_terminate_backend), crash_shutdown, cannot_connect_now, database_dropped, idle_session_timeout
  '57P01',
  '57P02',
  '57P03',
  '57P04',
  '57P05',
  // invalid_catalog_name: the database does not exist (dropped, or not created yet)
  '3D000',
  // io_error: the server could not read or write its files
  '58030',
]);
/** Class 08: connection exceptions. Class 53: insufficient resources (too_many_connections 53300, out_of_memory …). */
const POSTGRES_AWAY_CLASSES = ['08', '53'];
const POSTGRES_DISK_FULL = '53100';

/** The socket under a connection failed or never opened (Node's error codes). */
const SOCKET_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** node-postgres' own words for a connection it lost or could not get (they carry no code). */
const POSTGRES_CLIENT_LOST = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/**
 * SQLite's codes for a store that cannot be used now but may be shortly: another connection held the
 * lock past the wait (sqlite-lock-wait.ts), the disk failed a read or write, the file cannot be opened.
 * Extended codes (SQLITE_IOERR_WRITE, SQLITE_CANTOPEN_ISDIR …) start with these.
 */
const SQLITE_AWAY_PREFIXES = ['SQLITE_IOERR', 'SQLITE_CANTOPEN'];
const SQLITE_AWAY = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_TIMEOUT']);
const SQLITE_FULL = 'SQLITE_FULL';

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** What kind of store failure `error` is, or undefined when it is none (the statement's own fault). */
export type StoreFailureKind = 'unavailable' | 'full';

export function storeFailureKindOf(error: unknown): StoreFailureKind | undefined {
  if (error instanceof StoreFullError) return 'full';
  if (error instanceof StoreUnavailableError) return 'unavailable';
  const code = codeOf(error);
  if (code === POSTGRES_DISK_FULL || code === SQLITE_FULL) return 'full';
  if (code !== undefined) {
    if (POSTGRES_AWAY.has(code) || (code.length === 5 && POSTGRES_AWAY_CLASSES.includes(code.slice(0, 2)))) return 'unavailable';
    if (SOCKET_FAILURES.has(code) || SQLITE_AWAY.has(code) || SQLITE_AWAY_PREFIXES.some((prefix) => code.startsWith(prefix))) return 'unavailable';
    return undefined;
  }
  const message = error instanceof Error ? error.message : '';
  return POSTGRES_CLIENT_LOST.some((words) => message.startsWith(words)) ? 'unavailable' : undefined;
}

/** `error` as the typed error its kind is (or `kind` says it is), else `error` itself. */
export function asStoreFailure(error: unknown, kind = storeFailureKindOf(error)): unknown {
  if (error instanceof StoreUnavailableError || error instanceof StoreFullError) return error;
  if (kind === 'full') return new StoreFullError({ cause: error });
  if (kind === 'unavailable') return new StoreUnavailableError({ cause: error });
  return error;
}

/**
 * A store connection could not be had at all (the pool's connect): whatever the reason (refused, a server
 * not accepting sessions for this database, a password it refused, a timeout), the store is out of reach.
 */
export function asConnectFailure(error: unknown): unknown {
  return asStoreFailure(error, storeFailureKindOf(error) ?? 'unavailable');
}

/**
 * An error as it crosses to another thread. Structured clone keeps an Error's message but neither its
 * class nor its code, so a store failure travels as its kind and is made typed again on arrival.
 */
export interface ClonedError {
  message: string;
  /** The driver's code (SQLITE_FULL …), for the log. */
  code?: string;
  storeFailure?: StoreFailureKind;
}

export function cloneError(error: unknown): ClonedError {
  const kind = storeFailureKindOf(error);
  const cause = storeCauseOf(error);
  const code = codeOf(cause);
  return { message: cause instanceof Error ? cause.message : String(cause), ...(code ? { code } : {}), ...(kind ? { storeFailure: kind } : {}) };
}

/** What the driver threw, under a typed store failure: its message is for the client, the cause's for an operator. */
export function storeCauseOf(error: unknown): unknown {
  return (error instanceof StoreUnavailableError || error instanceof StoreFullError) && error.cause !== undefined ? error.cause : error;
}

/** The error a ClonedError stands for: typed again when it was a store failure. */
export function reviveError({ message, code, storeFailure }: ClonedError): unknown {
  return asStoreFailure(Object.assign(new Error(message), code ? { code } : {}), storeFailure);
}

/** How often a background write the store could not take is offered again (writeWhileStoreAway). */
export const STORE_RETRY_MS = 1_000;

/**
 * Runs `write` until it succeeds, again every STORE_RETRY_MS while it fails as a store failure (the store away
 * or full), until `deadline` (a time in ms) passes or `wanted()` turns false; then its last error is thrown.
 * `onFirstFailure` hears of the first. For a worker's record of what happened outside the store (a delivery
 * handed over, a webhook posted): written within a second of the store's return, rather than the work done
 * again, twice, once its lease has run out.
 */
export async function writeWhileStoreAway<T>(
  write: () => Promise<T>,
  { deadline, wanted, onFirstFailure }: { deadline: number; wanted: () => boolean; onFirstFailure?: (error: unknown) => void },
): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await write();
    } catch (error) {
      if (storeFailureKindOf(error) === undefined || !wanted() || Date.now() + STORE_RETRY_MS >= deadline) throw error;
      if (tries === 0) onFirstFailure?.(error);
      await new Promise((resolve) => setTimeout(resolve, STORE_RETRY_MS));
    }
  }
}
