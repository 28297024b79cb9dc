import { CompiledQuery } from 'kysely';
import { compileOnce } from './compiled-query.js';
import { storeKindOfDb, type Db } from './database.js';
import { endsTransaction } from './pipelined-postgres.js';
import type { Database } from './schema.js';

/** Largest multi-row INSERT: well under SQLite's 32,766 bound parameters for our widest table. */
const MAX_ROWS_PER_STATEMENT = 256;

/**
 * Splits rows into chunks whose sizes are powers of two (37 rows: 32, 4, 1).
 * Each chunk size is one SQL text, so a handful of statements per table serve
 * every batch size instead of one per row count.
 */
export function powerOfTwoChunks<T>(rows: T[]): T[][] {
  const chunks: T[][] = [];
  let start = 0;
  while (start < rows.length) {
    let size = MAX_ROWS_PER_STATEMENT;
    while (size > rows.length - start) size /= 2;
    chunks.push(rows.slice(start, start + size));
    start += size;
  }
  return chunks;
}

/**
 * Inserts rows of `table`. On SQLite with multi-row INSERTs that Kysely builds
 * once per chunk size (see compileOnce): on the send path, building a 32-row
 * INSERT anew costs more than SQLite takes to run it. On PostgreSQL in one
 * statement of one text, whatever the row count (insertTogether). Every row
 * must carry every listed column, `null` for none.
 */
export function bulkInsert<T extends keyof Database & string, C extends keyof Database[T] & string>(table: T, columns: readonly C[]) {
  type Row = { [K in C]: Database[T][K] };
  /** The rows' values in `columns` order, row after row: how every INSERT here binds them. */
  const valuesOf = (rows: Row[]): unknown[] => {
    const values: unknown[] = [];
    // A column a row leaves out (a message's template_id) is bound as NULL: SQLite cannot bind undefined.
    for (const row of rows) for (const column of columns) values.push(row[column] ?? null);
    return values;
  };
  const insertChunk = compileOnce(
    // Key order decides Kysely's column order: rebuild each row in `columns` order.
    (db: Db, rows: Row[]) => db.insertInto(table).values(rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c]]))) as never),
    valuesOf,
  );
  const insertOnSqlite = async (db: Db, rows: Row[]): Promise<void> => {
    for (const chunk of powerOfTwoChunks(rows)) await insertChunk(db, chunk);
  };
  /** These rows, to insert with other tables' in one statement (insertTogether). */
  const part = (rows: Row[]): InsertPart => ({
    table,
    columns,
    rows,
    insertAlone: (db) => insertOnSqlite(db, rows),
  });
  const insert = (db: Db, rows: Row[]): Promise<void> => insertTogether(db, [part(rows)]);
  return Object.assign(insert, { part });
}

/** One table's rows for insertTogether. */
export interface InsertPart {
  table: string;
  columns: readonly string[];
  rows: readonly unknown[];
  /** On SQLite, which has no INSERT in a CTE: these rows in statements of their own. */
  insertAlone(db: Db): Promise<void>;
  /**
   * On PostgreSQL, makes the part an upsert: its `on conflict …` clause. The upserts of one statement run
   * in the order given, each after the one before it, so that transactions lock the rows they share in
   * one order (logs-repository.ts: the counters).
   */
  onConflict?: string;
}

const statementsByTables = new Map<string, string>();

/**
 * `with "p0" as (insert … select … from json_populate_recordset(null::t0, $1)), … insert …`: one text
 * for these tables whatever their row counts, each table's rows one JSON parameter, typed by the
 * table's own row type.
 */
function statementOf(parts: InsertPart[]): string {
  const key = parts.map((p) => `${p.table}(${p.columns.join(',')})${p.onConflict ?? ''}`).join(';');
  let text = statementsByTables.get(key);
  if (text !== undefined) return text;
  let upsertBefore: number | undefined;
  const inserts = parts.map(({ table, columns, onConflict }, i) => {
    const list = columns.map((c) => `"${c}"`).join(', ');
    const rows = `json_populate_recordset(null::"${table}", $${i + 1}::json)`;
    if (onConflict === undefined) return `insert into "${table}" (${list}) select ${list} from ${rows}`;
    // The CTEs of a statement run in an order PostgreSQL leaves unspecified, but one that reads another's
    // RETURNING waits for all of it: each upsert reads the count of the one before.
    const after = upsertBefore === undefined ? '' : ` cross join (select count(*) as n from "p${upsertBefore}") as "after_p${upsertBefore}"`;
    upsertBefore = i;
    return `insert into "${table}" (${list}) select ${list} from ${rows}${after} ${onConflict} returning 1`;
  });
  const last = inserts.pop()!;
  text = inserts.length === 0 ? last : `with ${inserts.map((insert, i) => `"p${i}" as (${insert})`).join(', ')} ${last}`;
  statementsByTables.set(key, text);
  return text;
}

// In `u` mode a surrogate pair is one code point: these match only halves standing alone.
const LONE_SURROGATE = /\p{Surrogate}/u;
const LONE_SURROGATES = /\p{Surrogate}/gu;

/** Lone surrogates as U+FFFD: a replacer for JSON.stringify, on the rare rows that hold one. */
function wellFormed(_key: string, value: unknown): unknown {
  return typeof value === 'string' && LONE_SURROGATE.test(value) ? value.replace(LONE_SURROGATES, '\uFFFD') : value;
}

/**
 * A part's rows as its JSON parameter. node-postgres would send a lone UTF-16 surrogate as U+FFFD;
 * JSON would carry it as an escape PostgreSQL refuses, so it goes as U+FFFD here too. Bytes and
 * bigints have no JSON form that PostgreSQL would read back as the value: such a part fails loudly.
 */
function jsonRowsOf(part: InsertPart): string {
  for (const row of part.rows as readonly Record<string, unknown>[]) {
    for (const key in row) {
      const value = row[key];
      if (typeof value === 'bigint' || value instanceof Uint8Array) throw new TypeError(`insertTogether: ${part.table}.${key} holds ${typeof value === 'bigint' ? 'a bigint' : 'bytes'}, which JSON cannot carry`);
    }
  }
  // No replacer on the common path: calling one for every value took a twentieth of the API thread on the send path.
  // JSON.stringify writes a lone surrogate as an escape (\udXXX), never raw; `\ud` anywhere else only costs the slow path.
  const json = JSON.stringify(part.rows);
  return json.includes('\\ud') ? JSON.stringify(part.rows, wellFormed) : json;
}

/**
 * Inserts the rows of several tables. On PostgreSQL in one statement of
 * data-modifying CTEs: one round trip instead of one per table, each costing
 * the API thread a socket write and a wait (foreign keys between the parts are
 * checked at the statement's end). Its text depends on the tables alone, not
 * on how many rows each has, so it is prepared once per connection
 * (postgres-statements.ts): as multi-row VALUES, a text for every row count,
 * with hundreds of parameters, PostgreSQL parsed and planned it anew at every
 * batch, a sixth of its time on the send path. SQLite has no INSERT in a CTE,
 * and runs in process anyway: there the parts go one after the other, in the
 * order given. Tables without rows are skipped. `lastStatement`: nothing after this in the
 * transaction runs a statement, so on PostgreSQL its COMMIT goes right behind it (endsTransaction).
 */
export async function insertTogether(db: Db, parts: InsertPart[], { lastStatement = false } = {}): Promise<void> {
  const present = parts.filter((p) => p.rows.length > 0);
  if (present.length === 0) return;
  if (storeKindOfDb(db) !== 'postgres') {
    for (const p of present) await p.insertAlone(db);
    return;
  }
  const query = CompiledQuery.raw(statementOf(present), present.map(jsonRowsOf));
  await db.executeQuery(lastStatement ? endsTransaction(query) : query);
}
