import { sql, type Kysely, type RawBuilder } from 'kysely';
import { storeKindOfDb } from '../db/database.js';
import { STAT_NAMES, statColumns } from './stats.js';

export type Interval = 'hour' | 'day';

/**
 * A time series as the store writes it: the JSON array of buckets, zero-filled,
 * oldest first, `[{"bucket_start": …, "total_sent": …, …}]`. A month of hours
 * is 720 buckets; built as row objects in JavaScript and serialised again it
 * cost 3 ms per request, written by the store as one string about half a
 * millisecond. Each bucket of `starts` (made by the caller: the store's own
 * date functions cost more than the rest together) takes its hourly row by
 * its key, or, by the day, the sum of its hours; or zeros. The statistics are
 * the same sums of the same columns as everywhere (stats.ts); the SQL differs
 * by store only in how the list is taken apart and the JSON built (SQLite's
 * json_each and json_group_array, PostgreSQL's unnest and json_agg).
 */
export function seriesJsonQuery(db: Kysely<any>, workspaceId: string, starts: string[], interval: Interval): RawBuilder<{ series: string }> {
  const sqlite = storeKindOfDb(db) === 'sqlite';
  const statOf = (name: (typeof STAT_NAMES)[number], table: string) => sql.join(statColumns(name).map((c) => sql.ref(`${table}.${c}`)), sql` + `);
  // Hours join their row by its key; days first add up their hours (in index order).
  const source =
    interval === 'hour'
      ? {
          with: sql``,
          join: sql`log_hourly_counts c on c.workspace_id = ${workspaceId} and c.hour = bucket.start`,
          fields: sql.join(STAT_NAMES.map((name) => sql`${sql.lit(name)}, coalesce(${statOf(name, 'c')}, 0)`)),
        }
      : {
          with: sql`with c as (
            select substr(hour, 1, 10) || 'T00:00:00.000Z' as start, ${sql.join(STAT_NAMES.map((name) => sql`sum(${statOf(name, 'log_hourly_counts')}) as ${sql.ref(name)}`))}
            from log_hourly_counts
            where workspace_id = ${workspaceId} and hour >= ${starts[0]} and hour < ${end(starts, interval)}
            group by substr(hour, 1, 10)
          )`,
          join: sql`c on c.start = bucket.start`,
          fields: sql.join(STAT_NAMES.map((name) => sql`${sql.lit(name)}, coalesce(${sql.ref(`c.${name}`)}, 0)`)),
        };
  if (sqlite) {
    // json_each lists the buckets in order, and the left side of a LEFT JOIN is SQLite's outer loop: the
    // array comes out in bucket order without a sort (test/log-search.test.ts checks the order).
    return sql<{ series: string }>`${source.with}
      select json_group_array(json_object('bucket_start', bucket.start, ${source.fields})) as series
      from (select value as start from json_each(${JSON.stringify(starts)})) as bucket left join ${source.join}`;
  }
  return sql<{ series: string }>`${source.with}
    select coalesce(json_agg(json_build_object('bucket_start', bucket.start, ${source.fields}) order by bucket.n), '[]')::text as series
    from unnest(${starts}::text[]) with ordinality as bucket(start, n) left join ${source.join}`;
}

/** Where the last bucket ends. */
function end(starts: string[], interval: Interval): string {
  return new Date(Date.parse(starts[starts.length - 1]!) + (interval === 'hour' ? 3_600_000 : 86_400_000)).toISOString();
}
