import { CompiledQuery } from 'kysely';
import { compileOnce } from '../db/compiled-query.js';
import { storeKindOfDb, type Db } from '../db/database.js';
import type { Database } from '../db/schema.js';

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
 * Inserts rows of `table` with multi-row INSERTs that Kysely builds once per
 * chunk size (see compileOnce): on the send path, building a 32-row INSERT
 * anew costs more than SQLite takes to run it. Every row must carry every
 * listed column, `null` for none.
 */
export function bulkInsert<T extends keyof Database & string, C extends keyof Database[T] & string>(table: T, columns: readonly C[]) {
  type Row = { [K in C]: Database[T][K] };
  /** The rows' values in `columns` order, row after row: how every INSERT here binds them. */
  const valuesOf = (rows: Row[]): unknown[] => {
    const values: unknown[] = [];
    for (const row of rows) for (const column of columns) values.push(row[column]);
    return values;
  };
  const insertChunk = compileOnce(
    // Key order decides Kysely's column order: rebuild each row in `columns` order.
    (db: Db, rows: Row[]) => db.insertInto(table).values(rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c]]))) as never),
    valuesOf,
  );
  const insert = async (db: Db, rows: Row[]): Promise<void> => {
    for (const chunk of powerOfTwoChunks(rows)) await insertChunk(db, chunk);
  };
  /** These rows, to insert with other tables' in one statement (insertTogether). */
  const part = (rows: Row[]): InsertPart => ({
    table,
    columns,
    rows,
    values: () => valuesOf(rows),
    insertAlone: (db) => insert(db, rows),
  });
  return Object.assign(insert, { part });
}

/** One table's rows for insertTogether. */
export interface InsertPart {
  table: string;
  columns: readonly string[];
  rows: readonly unknown[];
  values(): unknown[];
  insertAlone(db: Db): Promise<void>;
}

/** PostgreSQL's limit is 65,535 bound parameters a statement; a statement past this goes table by table. */
const MAX_PARAMETERS_TOGETHER = 30_000;
const statementsByShape = new Map<string, string>();
const MAX_SHAPES = 256;

/** `with "p0" as (insert …), "p1" as (insert …) insert …`, with $n placeholders, for these row counts. */
function statementOf(parts: InsertPart[]): string {
  const shape = parts.map((p) => `${p.table}:${p.rows.length}`).join(',');
  let text = statementsByShape.get(shape);
  if (text !== undefined) return text;
  let next = 1;
  const inserts = parts.map(({ table, columns, rows }) => {
    const tuples = rows.map(() => `(${columns.map(() => `$${next++}`).join(', ')})`);
    return `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${tuples.join(', ')}`;
  });
  const last = inserts.pop()!;
  text = inserts.length === 0 ? last : `with ${inserts.map((insert, i) => `"p${i}" as (${insert})`).join(', ')} ${last}`;
  if (statementsByShape.size >= MAX_SHAPES) statementsByShape.clear();
  statementsByShape.set(shape, text);
  return text;
}

/**
 * Inserts the rows of several tables. On PostgreSQL in one statement of
 * data-modifying CTEs: one round trip instead of one per table, each costing
 * the API thread a socket write and a wait (foreign keys between the parts are
 * checked at the statement's end). SQLite has no INSERT in a CTE, and runs in
 * process anyway: there, and past MAX_PARAMETERS_TOGETHER or
 * MAX_ROWS_PER_STATEMENT rows of a table, the parts go one after the other, in
 * the order given. Tables without rows are skipped.
 */
export async function insertTogether(db: Db, parts: InsertPart[]): Promise<void> {
  const present = parts.filter((p) => p.rows.length > 0);
  const parameters = present.reduce((sum, p) => sum + p.rows.length * p.columns.length, 0);
  const together =
    storeKindOfDb(db) === 'postgres' && present.length > 1 && parameters <= MAX_PARAMETERS_TOGETHER && present.every((p) => p.rows.length <= MAX_ROWS_PER_STATEMENT);
  if (!together) {
    for (const p of present) await p.insertAlone(db);
    return;
  }
  await db.executeQuery(CompiledQuery.raw(statementOf(present), present.flatMap((p) => p.values())));
}
