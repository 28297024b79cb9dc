import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { LogType } from '../db/schema.js';

/**
 * `type = <type>`, written so that each store reads the type indexes, which
 * hold every entry but the sends (migration 0022), for the types they hold.
 * SQLite takes a partial index only when the query repeats its condition term
 * for term. PostgreSQL proves it from a literal type, in a generic plan too;
 * repeating the term there made it misjudge how many entries match (2 of 72)
 * and sort a bitmap scan. The type is one of three words the API checked.
 */
export function typeIs(type: LogType, postgres: boolean): RawBuilder<SqlBool> {
  if (postgres) return sql<SqlBool>`type = ${sql.lit(type)}`;
  return type === 'send' ? sql<SqlBool>`type = ${type}` : sql<SqlBool>`(type = ${type} and type <> 'send')`;
}
