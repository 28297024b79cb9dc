import { sql } from 'kysely';
import { storeKindOfDb, type Db } from '../../src/db/database.js';

/**
 * Makes every INSERT into `table` fail, as a full disk or a broken constraint
 * would, with a real trigger in the store the test runs on; answers a function
 * that drops it again. For what must hold when writing an outcome keeps failing.
 */
export async function refuseInserts(db: Db, table: string): Promise<() => Promise<void>> {
  const trigger = sql.id(`refuse_inserts_into_${table}`);
  if (storeKindOfDb(db) === 'sqlite') {
    await sql`create trigger ${trigger} before insert on ${sql.table(table)} begin select raise(abort, 'inserts refused by a test'); end`.execute(db);
    return async () => void (await sql`drop trigger ${trigger}`.execute(db));
  }
  const refuse = sql.id(`refuse_inserts_into_${table}_fn`);
  await sql`create function ${refuse}() returns trigger language plpgsql as $$ begin raise exception 'inserts refused by a test'; end $$`.execute(db);
  await sql`create trigger ${trigger} before insert on ${sql.table(table)} for each row execute function ${refuse}()`.execute(db);
  return async () => {
    await sql`drop trigger ${trigger} on ${sql.table(table)}`.execute(db);
    await sql`drop function ${refuse}()`.execute(db);
  };
}
