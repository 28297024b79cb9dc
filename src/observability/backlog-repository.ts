import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { OffThreadReads } from '../db/sqlite-reader.js';

/**
 * A depth above this reads as this: a scrape counts at most this many index
 * entries, so a queue of millions costs a scrape milliseconds, not seconds.
 * Alerts care whether a queue is long, not whether it is 2 or 3 million long.
 */
export const BACKLOG_COUNT_CAP = 100_000;

export interface Backlog {
  /** Delivery jobs still to do (due, leased, scheduled or waiting for a retry), up to BACKLOG_COUNT_CAP. */
  queueDepth: number;
  /** Seconds since the longest-waiting due job came due (0 when none is due). */
  oldestDueAgeSeconds: number;
  /** Webhook deliveries still to post (due or waiting for a retry), up to BACKLOG_COUNT_CAP. */
  webhookBacklog: number;
}

/**
 * The store-wide gauges, read at scrape time. Each query walks the claim
 * index (state, available_at, id) of its table, from the start of its
 * `pending` range: a count stops at the cap, the oldest due job is the
 * range's first entry. Finished rows and the log are never read.
 *
 * With `offThread` (serve on SQLite), the queries run on a connection of
 * another thread: a count at a deep queue takes tens of milliseconds, which
 * on the thread answering HTTP would hold up every request meanwhile.
 */
export function createBacklogRepository(db: Db, offThread?: OffThreadReads) {
  const queries = (now: string) => ({ depth: cappedPendingQuery(db, 'delivery_jobs'), oldestDue: oldestDueQuery(db, now), webhooks: cappedPendingQuery(db, 'webhook_deliveries') });

  async function rowsOf(now: string): Promise<[{ n: number | string } | undefined, { available_at: string } | undefined, { n: number | string } | undefined]> {
    const { depth, oldestDue, webhooks } = queries(now);
    if (!offThread) return Promise.all([depth.executeTakeFirst(), oldestDue.executeTakeFirst(), webhooks.executeTakeFirst()]);
    const [d, o, w] = await offThread.firstRows([depth.compile(), oldestDue.compile(), webhooks.compile()]);
    return [d as { n: number } | undefined, o as { available_at: string } | undefined, w as { n: number } | undefined];
  }

  return {
    /** The queries a scrape runs, for tests that read their plans. */
    queries,

    async read(now: Date = new Date()): Promise<Backlog> {
      const [depth, oldest, webhooks] = await rowsOf(now.toISOString());
      // A count always has its row; none means the query did not run as written.
      if (!depth || !webhooks) throw new Error('a backlog count answered no row');
      const dueSince = oldest ? Date.parse(oldest.available_at) : undefined;
      return {
        queueDepth: Number(depth.n),
        oldestDueAgeSeconds: dueSince === undefined ? 0 : Math.max(0, (now.getTime() - dueSince) / 1000),
        webhookBacklog: Number(webhooks.n),
      };
    },
  };
}

/** Pending rows counted off the claim index, stopping at the cap. */
function cappedPendingQuery(db: Db, table: 'delivery_jobs' | 'webhook_deliveries') {
  return db
    .selectFrom((eb) => eb.selectFrom(table).select(sql<number>`1`.as('one')).where('state', '=', 'pending').limit(BACKLOG_COUNT_CAP).as('pending'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'));
}

/** The first due entry of the claim index's `pending` range (ORDER BY … LIMIT 1, which both planners read off the index). */
function oldestDueQuery(db: Db, now: string) {
  return db.selectFrom('delivery_jobs').select('available_at').where('state', '=', 'pending').where('available_at', '<=', now).orderBy('available_at').limit(1);
}

export type BacklogRepository = ReturnType<typeof createBacklogRepository>;
