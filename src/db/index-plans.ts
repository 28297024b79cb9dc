import { sql } from 'kysely';
import { storeKindOfDb, type Db } from './database.js';

/**
 * Statements whose right plan is an index whatever the table holds, kept on it on PostgreSQL.
 *
 * PostgreSQL plans from statistics taken earlier, and Mailroom's tables outgrow them: a table analysed
 * while it was small (a new store, or a year of finished jobs before a burst), or never analysed where
 * autovacuum is off, is planned for what it held then. For the statements here that is a scan of the
 * whole table, and the cost grows with the table, exactly when the worker is busiest. Each runs in a
 * transaction of its own in which the planner is told not to scan otherwise (`set_config(…, true)`
 * lasts until that transaction ends). Inside a caller's transaction the settings would outlive the
 * statement: there it runs as planned. SQLite's planner, without statistics, takes the index as it is.
 */
async function withScansOff<T>(db: Db, scans: readonly ('bitmapscan' | 'seqscan')[], run: (on: Db) => Promise<T>): Promise<T> {
  if (storeKindOfDb(db) !== 'postgres' || db.isTransaction) return run(db);
  return db.transaction().execute(async (trx) => {
    await sql`select ${sql.join(scans.map((scan) => sql`set_config(${`enable_${scan}`}, 'off', true)`))}`.execute(trx);
    return run(trx);
  });
}

/**
 * A queue's claim (`… where state = 'pending' and available_at <= now … order by available_at, id
 * limit n`, the delivery jobs' and the webhook deliveries'), reading the due index in order and stopping
 * at the limit. Left to statistics of a smaller queue, it was a bitmap scan of every pending row, sorted,
 * for the few taken: 33 ms a claim at 23,000 pending jobs. A bitmap scan also leaves the index entries of
 * rows long settled for the next scan to visit again where nothing vacuums; a plain index scan marks them
 * dead as it passes. The index is in the claim's order, so reading it is never the worse plan.
 */
export function claimInIndexOrder<T>(db: Db, claim: (on: Db) => Promise<T>): Promise<T> {
  return withScansOff(db, ['bitmapscan', 'seqscan'], claim);
}

/**
 * A look-up of rows by a list of keys of a non-unique index (`where message_id in (…)`). Without
 * statistics PostgreSQL takes each key to match 0.5 % of the table, so 64 keys to match a third of it,
 * and reads all of it: 25–85 ms for the worker's 64 messages at 270,000 log entries. A bitmap or plain
 * index scan of the keys is never the worse plan.
 */
export function lookUpByIndex<T>(db: Db, lookUp: (on: Db) => Promise<T>): Promise<T> {
  return withScansOff(db, ['seqscan'], lookUp);
}
