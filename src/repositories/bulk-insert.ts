import { compileOnce } from '../db/compiled-query.js';
import type { Db } from '../db/database.js';
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
  const insertChunk = compileOnce(
    // Key order decides Kysely's column order: rebuild each row in `columns` order.
    (db: Db, rows: Row[]) => db.insertInto(table).values(rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c]]))) as never),
    (rows: Row[]) => {
      const values: unknown[] = [];
      for (const row of rows) for (const column of columns) values.push(row[column]);
      return values;
    },
  );
  return async (db: Db, rows: Row[]): Promise<void> => {
    for (const chunk of powerOfTwoChunks(rows)) await insertChunk(db, chunk);
  };
}
