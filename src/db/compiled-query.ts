import { isDeepStrictEqual } from 'node:util';
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

/** Distinct shapes per query are few (one per parameter count); bound them all the same. */
const MAX_SHAPES_PER_QUERY = 64;

/**
 * A query built and compiled by Kysely the first time it is run with a given
 * number of parameters, then run with new parameters: for the statements of
 * every request, where building and compiling the query costs more than
 * SQLite's own work. `flatten` lists the bound values in the order the built
 * query binds them; the first run of each shape checks that order against
 * Kysely's own and throws if they differ, so a mismatch fails loudly in tests
 * rather than binding values to the wrong columns. The parameter count must
 * decide the SQL text (a row count, an IN-list length), which holds for every
 * use here. One process talks to one kind of store, so one SQL text serves it.
 */
export function compileOnce<Db extends Kysely<any>, P extends unknown[], Row>(
  build: (db: Db, ...params: P) => Compilable<Row>,
  flatten: (...params: P) => readonly unknown[] = (...params) => params.flat(),
) {
  const sqlByCount = new Map<number, string>();
  return async (db: Db, ...params: P): Promise<Row[]> => {
    const values = flatten(...params);
    let sql = sqlByCount.get(values.length);
    if (sql === undefined) {
      const compiled = build(db, ...params).compile();
      if (!isDeepStrictEqual(compiled.parameters, values)) {
        throw new Error(`compileOnce: the flattened parameters do not match the query's own for: ${compiled.sql}`);
      }
      sql = compiled.sql;
      if (sqlByCount.size >= MAX_SHAPES_PER_QUERY) sqlByCount.clear();
      sqlByCount.set(values.length, sql);
    }
    return (await db.executeQuery<Row>(CompiledQuery.raw(sql, values as unknown[]))).rows;
  };
}
