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
  /** Recipients SES accepted that have heard nothing for longer than SES_EVENT_TIMEOUT, up to BACKLOG_COUNT_CAP. */
  sesEventsOverdue: number;
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
export function createBacklogRepository(db: Db, offThread?: OffThreadReads, sesEventTimeoutMs = 48 * 3600_000) {
  const queries = (now: string) => ({
    depth: cappedPendingQuery(db, 'delivery_jobs'),
    oldestDue: oldestDueQuery(db, now),
    webhooks: cappedPendingQuery(db, 'webhook_deliveries'),
    sesOverdue: sesOverdueQuery(db, new Date(Date.parse(now) - sesEventTimeoutMs).toISOString()),
  });
  type Count = { n: number | string } | undefined;

  async function rowsOf(now: string): Promise<[Count, { available_at: string } | undefined, Count, Count]> {
    const { depth, oldestDue, webhooks, sesOverdue } = queries(now);
    if (!offThread) return Promise.all([depth.executeTakeFirst(), oldestDue.executeTakeFirst(), webhooks.executeTakeFirst(), sesOverdue.executeTakeFirst()]);
    const [d, o, w, s] = await offThread.firstRows([depth.compile(), oldestDue.compile(), webhooks.compile(), sesOverdue.compile()]);
    return [d as Count, o as { available_at: string } | undefined, w as Count, s as Count];
  }

  return {
    /** The queries a scrape runs, for tests that read their plans. */
    queries,

    async read(now: Date = new Date()): Promise<Backlog> {
      const [depth, oldest, webhooks, sesOverdue] = await rowsOf(now.toISOString());
      // A count always has its row; none means the query did not run as written.
      if (!depth || !webhooks || !sesOverdue) throw new Error('a backlog count answered no row');
      const dueSince = oldest ? Date.parse(oldest.available_at) : undefined;
      return {
        queueDepth: Number(depth.n),
        oldestDueAgeSeconds: dueSince === undefined ? 0 : Math.max(0, (now.getTime() - dueSince) / 1000),
        webhookBacklog: Number(webhooks.n),
        sesEventsOverdue: Number(sesOverdue.n),
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

/**
 * Recipients still `sent` whose latest attempt is an SES hand-over made before `cutoff`, with no event
 * since (the message detail's note, messages/message-detail-service.ts). Read from the `sent` range of
 * the log's status index, workspace by workspace (a CROSS JOIN, which SQLite's planner takes in the
 * order written, rather than scanning the log for the few `sent`): entries leave it as soon as they are delivered,
 * bounced or failed, so it holds the sends in flight and the overdue ones, not the log's history; each
 * is then looked up in the attempts' and events' (message_id, id) indexes.
 */
function sesOverdueQuery(db: Db, cutoff: string) {
  return db
    .selectFrom((eb) =>
      eb
        .selectFrom('workspaces as w')
        .crossJoin('log_entries as e')
        .whereRef('e.workspace_id', '=', 'w.id')
        .where('e.status', '=', 'sent')
        .where('e.type', '=', 'send')
        .select(sql<number>`1`.as('one'))
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('delivery_attempts as a')
              .select(sql<number>`1`.as('one'))
              .whereRef('a.message_id', '=', 'e.message_id')
              .whereRef('a.recipient', '=', 'e.recipient')
              .where('a.provider', '=', 'ses')
              .where('a.outcome', '=', 'accepted')
              .where('a.created_at', '<', cutoff)
              .where((a) => a.not(a.exists(a.selectFrom('delivery_attempts as b').select(sql<number>`1`.as('one')).whereRef('b.message_id', '=', 'a.message_id').whereRef('b.recipient', '=', 'a.recipient').whereRef('b.id', '>', 'a.id'))))
              .where((a) => a.not(a.exists(a.selectFrom('message_events as v').select(sql<number>`1`.as('one')).whereRef('v.message_id', '=', 'a.message_id').whereRef('v.recipient', '=', 'a.recipient').whereRef('v.created_at', '>=', 'a.created_at')))),
          ),
        )
        .limit(BACKLOG_COUNT_CAP)
        .as('overdue'),
    )
    .select((eb) => eb.fn.countAll<number | string>().as('n'));
}

/** The first due entry of the claim index's `pending` range (ORDER BY … LIMIT 1, which both planners read off the index). */
function oldestDueQuery(db: Db, now: string) {
  return db.selectFrom('delivery_jobs').select('available_at').where('state', '=', 'pending').where('available_at', '<=', now).orderBy('available_at').limit(1);
}

export type BacklogRepository = ReturnType<typeof createBacklogRepository>;
