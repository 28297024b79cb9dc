import { sql } from 'kysely';
import type { Logger } from 'pino';
import { storeKindOfDb, type Db } from './database.js';

/**
 * Why the server's `autovacuum` setting needs an operator's eye, or null. The queues (delivery jobs,
 * webhook deliveries) settle rows by the thousand; without autovacuum their dead versions stay in the
 * indexes and no table is ever analysed, so the planner keeps the statistics of an empty table. Claims
 * and log pages then slow as the store grows (bench/README.md saw a claim go from 1.4 ms to 11 ms).
 */
export function autovacuumWarning(setting: string | undefined): string | null {
  if (setting !== 'off') return null;
  return 'PostgreSQL runs with autovacuum = off: the settled rows of the delivery and webhook queues are never cleaned up and no table is analysed, so claims and log pages slow down as the store grows; turn autovacuum on, or run VACUUM (ANALYZE) on a schedule';
}

/** At start, on PostgreSQL: a warning for each server setting Mailroom relies on that is not as it should be. Never stops the start. */
export async function warnAboutServerSettings(db: Db, log: Logger): Promise<void> {
  if (storeKindOfDb(db) !== 'postgres') return;
  try {
    const { rows } = await sql<{ autovacuum: string }>`select current_setting('autovacuum') as autovacuum`.execute(db);
    const warning = autovacuumWarning(rows[0]?.autovacuum);
    if (warning) log.warn(warning);
  } catch {
    // A setting this role may not read is no reason not to start.
  }
}
