import { sql } from 'kysely';
import { storeKindOfDb, type Db } from '../../src/db/database.js';

const COUNTER = 'test_row_changes';

/**
 * Counts every row inserted into or deleted from the store's tables (all but
 * `except`), with real triggers in the store the test runs on, whichever
 * connection or thread writes: a read of one row tells whether anything was
 * written since the last, where counting each table's rows took milliseconds.
 * A write rolled back is not counted.
 */
export async function countRowChanges(db: Db, except: Set<string>): Promise<{ tables: string[]; read(): Promise<number> }> {
  const sqlite = storeKindOfDb(db) === 'sqlite';
  const names = sqlite
    ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)).rows
    : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)).rows;
  const tables = names.map((row) => row.name).filter((name) => !except.has(name)).sort();
  await sql`create table ${sql.table(COUNTER)} (n bigint not null)`.execute(db);
  await sql`insert into ${sql.table(COUNTER)} (n) values (0)`.execute(db);
  const bump = sql`update ${sql.table(COUNTER)} set n = n + 1`;
  if (!sqlite) await sql`create function test_count_row_change() returns trigger language plpgsql as $$ begin ${bump}; return null; end $$`.execute(db);
  for (const table of tables) {
    for (const event of ['insert', 'delete'] as const) {
      const trigger = sql.id(`${COUNTER}_${event}_${table}`);
      if (sqlite) await sql`create trigger ${trigger} after ${sql.raw(event)} on ${sql.table(table)} begin ${bump}; end`.execute(db);
      else await sql`create trigger ${trigger} after ${sql.raw(event)} on ${sql.table(table)} for each row execute function test_count_row_change()`.execute(db);
    }
  }
  return {
    tables,
    read: async () => Number((await sql<{ n: number | string }>`select n from ${sql.table(COUNTER)}`.execute(db)).rows[0]!.n),
  };
}
