/** Largest multi-row INSERT: well under SQLite's 32,766 bound parameters for our widest table. */
const MAX_ROWS_PER_STATEMENT = 256;

/**
 * Splits rows into chunks whose sizes are powers of two (37 rows: 32, 4, 1).
 * Each chunk size is one SQL text, so a handful of prepared statements per
 * table serve every batch size instead of one per row count.
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
