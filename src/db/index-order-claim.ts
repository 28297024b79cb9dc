import { sql } from 'kysely';
import { storeKindOfDb, type Db } from './database.js';

/**
 * Runs a queue's claim (`… where state = 'pending' and available_at <= now … order by available_at, id
 * limit n`) so that PostgreSQL reads the queue's due index in order and stops at the limit.
 *
 * PostgreSQL plans from statistics taken earlier, and a queue outgrows them: a table analysed while few
 * rows were pending (a new store, or a year of finished rows before a burst) is planned as a bitmap scan
 * of every pending row, sorted, for the few taken: 33 ms a claim at 23,000 pending jobs, and longer
 * as the backlog grows, exactly when the claims matter. The index is in the claim's order, so reading it
 * is never the worse plan; in the claim's own transaction the planner is told not to scan otherwise.
 * Inside a caller's transaction the settings would outlive the claim: there it runs as planned.
 * SQLite's planner takes the index as it is.
 */
export async function claimInIndexOrder<T>(db: Db, claim: (on: Db) => Promise<T>): Promise<T> {
  if (storeKindOfDb(db) !== 'postgres' || db.isTransaction) return claim(db);
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)`.execute(trx);
    return claim(trx);
  });
}
