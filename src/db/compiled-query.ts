import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

/**
 * A query built and compiled by Kysely on its first run, then run with new
 * parameters: for reads on every request, where building and compiling the
 * query costs more than SQLite's own index lookup. `build` must use each
 * parameter exactly once, in order, so the compiled placeholders line up.
 * One process talks to one kind of store, so one SQL text serves it.
 */
export function compileOnce<Db extends Kysely<any>, P extends unknown[], Row>(build: (db: Db, ...params: P) => Compilable<Row>) {
  let sql: string | undefined;
  return async (db: Db, ...params: P): Promise<Row[]> => {
    sql ??= build(db, ...params).compile().sql;
    return (await db.executeQuery<Row>(CompiledQuery.raw(sql, params))).rows;
  };
}
