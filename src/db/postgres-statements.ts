import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * How many distinct SQL texts may become prepared statements. Mailroom's
 * queries are a few hundred shapes at most; past this, new texts run
 * unprepared, so what each connection keeps on the server stays bounded.
 */
const MAX_PREPARED_TEXTS = 400;

/**
 * Statements with more parameters than this run unprepared: those are the
 * shapes that vary with their input (long IN lists), where planning is a
 * small part of the work and each size would be a text of its own. Bulk
 * inserts, which were the largest of them, bind each table's rows as one JSON
 * parameter instead, and are prepared (bulk-insert.ts). So do statements
 * without any: transaction control, DDL, the health check, which have nothing
 * to plan or run once.
 */
const MAX_PREPARED_PARAMETERS = 64;

/**
 * Makes every pooled connection run Kysely's queries as named prepared
 * statements, as the SQLite dialect reuses its prepared statements: the
 * server parses and plans a text once per connection instead of on every
 * request. Kysely hands node-postgres a text and its values; the same call
 * with a name (a hash of the text, so the same on every connection) is
 * node-postgres' own prepared-statement form. bench:logs on PostgreSQL: the
 * 30-day time series went from 676 to 1,057 requests a second, a sender's
 * logs page from 1,713 to 2,471. PostgreSQL's default plan_cache_mode still
 * plans the first five runs for their values and keeps a generic plan only
 * when it costs no more, and drops a plan itself when a table changes.
 */
export function usePreparedStatements(pool: pg.Pool): void {
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_PREPARED_TEXTS) {
      name = `mr_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
      names.set(text, name);
    }
    return name;
  };
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    // Only the (text, values) form Kysely uses; a callback, a config object or a cursor passes through unchanged.
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const [text, values] = args;
      const prepare =
        args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0 && values.length <= MAX_PREPARED_PARAMETERS;
      const name = prepare ? nameOf(text) : undefined;
      return name === undefined ? query(...args) : query({ name, text, values });
    };
  });
}
