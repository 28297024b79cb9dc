import { sql, type SelectQueryBuilder } from 'kysely';
import { storeKindOfDb, type Db } from '../db/database.js';
import { logPageJsonQuery } from './log-page-json.js';
import type { LogFilter } from './log-filter.js';

export type { LogFilter };
import { typeIs } from './type-condition.js';
import type { Database, LogStatus, LogType } from '../db/schema.js';

/** A log entry as the API shows it (SPEC.md §2.3, and `error`). */
export interface LogEntryView {
  id: string;
  type: LogType;
  status: LogStatus;
  to: string;
  from_email: string;
  subject: string;
  message_id: string;
  /** Error detail of a failed, bounced or suppressed recipient; null otherwise. */
  error: string | null;
  created_at: string;
  /** The message's tags, `{name: value}`; `{}` when none. */
  tags: Record<string, string>;
}

type EntryQuery<O> = SelectQueryBuilder<Database, 'log_entries', O>;

/** Where a page starts: after this entry, in the log's order (newest first). */
export interface LogCursor {
  created_at: string;
  id: string;
}

/**
 * Entries a query counts before it stops: past it a total reads as "at least
 * this many" (a page of up to 100 still says where it is among the first ten).
 * Counting half a million entries of one sender took 47 ms on SQLite here,
 * ten thousand half a millisecond (bench/README.md), a thousand a twentieth.
 */
export const EXACT_COUNT_LIMIT = 1_000;

/**
 * The columns a query reads the log's order from (workspace, then created_at
 * and id, newest first): the entries' own, or, for a tag filter, the tag
 * rows' (log_entry_tags, `t`, joined to their entries), whose key is that
 * order for one tag.
 */
interface OrderKeys {
  workspace: string;
  createdAt: string;
  id: string;
}
const ENTRY_KEYS: OrderKeys = { workspace: 'workspace_id', createdAt: 'created_at', id: 'id' };
const TAG_KEYS: OrderKeys = { workspace: 't.workspace_id', createdAt: 't.created_at', id: 't.log_id' };

/** A tag filter is read off the tag rows' key, unless a message is named: then off the message's few entries (their `tags`). */
const readsTagRows = (filter: LogFilter) => filter.tag !== undefined && filter.message_id === undefined;
/** Whether the filter looks at the entries themselves beyond the key of the rows it is read from. */
const filtersEntries = (filter: LogFilter) => Boolean(filter.type || filter.status) || filter.to !== undefined || filter.from_email !== undefined;

/**
 * The filter as WHERE clauses. Each one is served by an index whose columns
 * end in (created_at, id) (migrations 0001, 0007 and 0019): the recipient and
 * the sender through indexes on their lower-cased values, so the expressions
 * here must stay `lower(column)` to match them; a tag through the tag rows'
 * key (`keys` is TAG_KEYS then).
 *
 * With a message id, the workspace is compared as `workspace_id || ''`, an
 * expression no index is on: a message has a few hundred entries at most, and
 * only the message index finds them without reading others, but without
 * statistics SQLite's planner prefers any (workspace_id, …, created_at)
 * index that spares it the sort, and walks the workspace's whole log. A tag
 * is then checked on those entries' own `tags`.
 */
function filtered<O>(query: EntryQuery<O>, workspaceId: string, filter: LogFilter, keys: OrderKeys, postgres: boolean): EntryQuery<O> {
  let q =
    filter.message_id === undefined
      ? query.where(sql.ref(keys.workspace), '=', workspaceId)
      : query.where(sql`workspace_id || ''`, '=', workspaceId).where('message_id', '=', filter.message_id);
  if (filter.tag && keys === TAG_KEYS) q = q.where(sql.ref('t.name'), '=', filter.tag.name).where(sql.ref('t.value'), '=', filter.tag.value);
  else if (filter.tag) {
    // Names are [A-Za-z0-9_-]: quoted, one is a JSON path of its own.
    const value = postgres ? sql`(tags::json ->> ${filter.tag.name}::text)` : sql`json_extract(tags, ${`$."${filter.tag.name}"`})`;
    q = q.where(value, '=', filter.tag.value);
  }
  if (filter.type) q = q.where(typeIs(filter.type, postgres));
  if (filter.status) q = q.where('status', '=', filter.status);
  if (filter.to !== undefined) q = q.where(sql`lower(recipient)`, '=', sql`lower(${filter.to})`);
  if (filter.from_email !== undefined) q = q.where(sql`lower(from_email)`, '=', sql`lower(${filter.from_email})`);
  if (filter.since !== undefined) q = q.where(sql.ref(keys.createdAt), '>=', filter.since);
  if (filter.until !== undefined) q = q.where(sql.ref(keys.createdAt), '<', filter.until);
  return q;
}

/** Newest first, in the order `keys` name: the order of the index a filter reads. */
const newestFirst = <O>(query: EntryQuery<O>, keys: OrderKeys) => query.orderBy(sql.ref(keys.createdAt), 'desc').orderBy(sql.ref(keys.id), 'desc');

/** Searching the log: pages newest first and counts of what matches. */
export function createLogSearchRepository(db: Db) {
  const postgres = storeKindOfDb(db) === 'postgres';
  /** The rows a query starts from: the entries, or a tag's rows and (`withEntries`) their entries. */
  const source = (filter: LogFilter, withEntries = true): { from: EntryQuery<object>; keys: OrderKeys } => {
    if (!readsTagRows(filter)) return { from: db.selectFrom('log_entries'), keys: ENTRY_KEYS };
    const tagRows = db.selectFrom('log_entry_tags as t');
    // Typed as the entries' query: every column the filter names but the keys is the entries' alone, so unambiguous.
    const from = withEntries ? tagRows.innerJoin('log_entries', 'log_entries.id', 't.log_id') : tagRows;
    return { from: from as unknown as EntryQuery<object>, keys: TAG_KEYS };
  };

  const pageQuery = (workspaceId: string, filter: LogFilter, limit: number, offset: number, after?: LogCursor) => {
    // Of `until` and a cursor, only the lower upper bound: SQLite bounds an index search by one of them.
    if (after && filter.until !== undefined) {
      if (after.created_at < filter.until) filter = { ...filter, until: undefined };
      else after = undefined;
    }
    const { from, keys } = source(filter);
    // The view's fields, in its order and under its names: the rows are the answer, with nothing to map.
    const columns = ['id', 'type', 'status', 'recipient as to', 'from_email', 'subject', 'message_id', 'error', 'created_at', 'tags'] as const;
    let page = filtered(from.select(columns.map((c) => `log_entries.${c}` as const)), workspaceId, filter, keys, postgres);
    if (after) {
      // Past the cursor in (created_at desc, id desc), as one row-value comparison: both stores take it as
      // a bound on the (…, created_at, id) index, so a page reads its own entries, however deep it is.
      page = page.where(sql`(${sql.ref(keys.createdAt)}, ${sql.ref(keys.id)})`, '<', sql`(${after.created_at}, ${after.id})`);
    }
    return newestFirst(page, keys).limit(limit).offset(offset);
  };
  // Counting stops one past the cap: how far it reads is bounded whatever the filter matches. Newest
  // first, as the page reads them, unless a message is named (its few entries come off its own
  // index): without an order PostgreSQL may count a sender with half the log by reading the table
  // from its start until 1,001 rows match, rather than off the index the page uses. A tag alone is
  // counted off its rows' key, without reading the entries.
  const countQuery = (workspaceId: string, filter: LogFilter, cap = EXACT_COUNT_LIMIT) => {
    const { from, keys } = source(filter, filtersEntries(filter));
    let matching = filtered(from.select(sql<number>`1`.as('one')), workspaceId, filter, keys, postgres);
    if (filter.message_id === undefined) matching = newestFirst(matching, keys);
    return db.selectFrom(matching.limit(cap + 1).as('matching')).select((eb) => eb.fn.countAll().as('n'));
  };

  return {
    /** The place of an entry of the workspace in the log, to page from; undefined for any other id. */
    async cursorOf(workspaceId: string, id: string): Promise<LogCursor | undefined> {
      return db.selectFrom('log_entries').select(['created_at', 'id']).where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
    },

    /** The queries behind a page and its count, for their plans (test/log-search-plans.test.ts). */
    pageQuery,
    countQuery,

    /**
     * A page as the JSON text of its entries, and how many match (capped at
     * EXACT_COUNT_LIMIT + 1 when counted off an index), in one statement
     * (log-page-json.ts).
     */
    async pageJson(workspaceId: string, filter: LogFilter, limit: number, offset: number, after?: LogCursor): Promise<{ entries: string; total: number }> {
      const query = logPageJsonQuery(db, pageQuery(workspaceId, filter, limit, offset, after), workspaceId, filter, countQuery(workspaceId, filter));
      const { rows } = await query.execute(db);
      return { entries: rows[0]!.entries, total: Number(rows[0]!.total) };
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    logSearch: ReturnType<typeof createLogSearchRepository>;
  }
}
