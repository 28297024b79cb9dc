import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

/**
 * A query built and compiled by Kysely once, run many times with new
 * parameters. For reads on every request, where building and compiling the
 * query costs more than SQLite's own index lookup. `build` must use each
 * parameter exactly once, in order, so the compiled placeholders line up.
 */
export function compileOnce<P extends unknown[], Row>(build: (...params: P) => Compilable<Row>, ...samples: P) {
  const { sql } = build(...samples).compile();
  return async (db: Kysely<any>, ...params: P): Promise<Row[]> => (await db.executeQuery<Row>(CompiledQuery.raw(sql, params))).rows;
}
