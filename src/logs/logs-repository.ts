import type { Db } from '../db/database.js';
import type { LogCountersTable, LogEntriesTable, LogEntryTagsTable, LogHourlyCountsTable, LogStatus, LogType } from '../db/schema.js';
import { countColumnOf, LOG_COUNT_COLUMNS, type LogCountColumn } from '../stats/index.js';
import { CompiledQuery } from 'kysely';
import { storeKindOfDb } from '../db/database.js';
import { lookUpByIndex } from '../db/index-plans.js';
import { bulkInsert, insertTogether, type InsertPart } from '../db/bulk-insert.js';
import { tagPairs } from '../lib/tags.js';

export type LogEntryRow = LogEntriesTable;

// All three run on every accepted send.
const insertEntries = bulkInsert('log_entries', [
  'id', 'workspace_id', 'message_id', 'type', 'status', 'recipient', 'from_email', 'subject', 'error', 'tags', 'created_at', 'updated_at',
]);
const insertTags = bulkInsert('log_entry_tags', ['workspace_id', 'name', 'value', 'created_at', 'log_id']);

/** The tag filter's rows of entries (one per tag per entry); the entries of one message share one parse. */
function tagRowsOf(entries: LogEntryRow[]): LogEntryTagsTable[] {
  const parsed = new Map<string, [string, string][]>();
  const rows: LogEntryTagsTable[] = [];
  for (const { tags, workspace_id, created_at, id } of entries) {
    if (tags === null) continue;
    let pairs = parsed.get(tags);
    if (!pairs) parsed.set(tags, (pairs = tagPairs(tags)));
    for (const [name, value] of pairs) rows.push({ workspace_id, name, value, created_at, log_id: id });
  }
  return rows;
}
type HourlyDelta = Pick<LogHourlyCountsTable, 'workspace_id' | 'hour'> & Record<LogCountColumn, number>;
const COUNT_COLUMNS = LOG_COUNT_COLUMNS.map((c) => c.column);

/**
 * A counter table's rows as upserts that add to what is there: the part insertTogether writes on PostgreSQL
 * (all of a transaction's rows in one statement), and on SQLite, which has no INSERT in a CTE, an upsert a
 * row under the same ON CONFLICT clause. The SQL is made once per table.
 */
function counterUpserts(table: 'log_counters' | 'log_hourly_counts', key: readonly string[], counts: readonly string[]): (rows: readonly object[]) => InsertPart {
  const columns = [...key, ...counts];
  const onConflict = `on conflict (${key.map((c) => `"${c}"`).join(', ')}) do update set ${counts.map((c) => `"${c}" = "${table}"."${c}" + excluded."${c}"`).join(', ')}`;
  const upsertOne = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')}) ${onConflict}`;
  return (rows) => ({
    table,
    columns,
    rows,
    onConflict,
    insertAlone: async (db) => {
      for (const row of rows as Record<string, unknown>[]) await db.executeQuery(CompiledQuery.raw(upsertOne, columns.map((c) => row[c])));
    },
  });
}
const totalsUpserts = counterUpserts('log_counters', ['workspace_id', 'type', 'status'], ['count']);
const hourlyUpserts = counterUpserts('log_hourly_counts', ['workspace_id', 'hour'], COUNT_COLUMNS);

/** The hour an entry is counted in: its `created_at` (ISO 8601 UTC text) cut to the hour. */
export function hourOf(createdAt: string): string {
  return `${createdAt.slice(0, 13)}:00:00.000Z`;
}

/**
 * Counter changes gathered over one transaction and applied at its end, added
 * up and in one order (all-time counters by workspace, type, status; then the
 * hourly rows by workspace and hour). Applied as they came, two
 * transactions moving entries of two workspaces, or from different statuses,
 * took the same counter rows' locks in opposite orders and deadlocked on
 * PostgreSQL; in one order they queue instead. On PostgreSQL both tables'
 * changes are one statement (insertTogether runs its upserts in the order
 * given), or ride along with the statement that inserts the entries (take).
 */
export function createCounterDeltas() {
  const totals = new Map<string, LogCountersTable>();
  const hourly = new Map<string, HourlyDelta>();
  let taken = false;
  /** The changes as upserts in the one order, those that change nothing left out. */
  const parts = (): InsertPart[] => {
    const totalRows = [...totals.keys()].sort().map((key) => totals.get(key)!).filter((delta) => delta.count !== 0);
    const hourlyRows = [...hourly.keys()].sort().map((key) => hourly.get(key)!).filter((delta) => COUNT_COLUMNS.some((c) => delta[c] !== 0));
    totals.clear();
    hourly.clear();
    return [totalsUpserts(totalRows), hourlyUpserts(hourlyRows)];
  };
  return {
    /** `count` entries of (type, status) more (or fewer, when negative), created at `createdAt`. */
    add(workspace_id: string, type: LogType, status: LogStatus, count: number, createdAt: string): void {
      // After take, a change would lock its counter rows after the hourly rows it locked: out of the one order.
      // Sealed on SQLite too, so that a change that breaks this fails in either store's tests.
      if (taken) throw new Error('The counters of this transaction were applied already: nothing after that may change them');
      const key = `${workspace_id}\0${type}\0${status}`;
      const total = totals.get(key) ?? { workspace_id, type, status, count: 0 };
      total.count += count;
      totals.set(key, total);
      const hour = hourOf(createdAt);
      const hourKey = `${workspace_id}\0${hour}`;
      let inHour = hourly.get(hourKey);
      if (!inHour) {
        inHour = { workspace_id, hour, ...(Object.fromEntries(COUNT_COLUMNS.map((c) => [c, 0])) as Record<LogCountColumn, number>) };
        hourly.set(hourKey, inHour);
      }
      inHour[countColumnOf(type, status)] += count;
    },
    /**
     * The transaction's changes so far, as upserts for the statement that ends its counting (insertTogether):
     * no change may follow.
     */
    take(): InsertPart[] {
      taken = true;
      return parts();
    },
    /** No change may follow; those so far are applied at the transaction's end (SQLite: it has no statement to take them). */
    seal(): void {
      taken = true;
    },
    async apply(db: Db): Promise<void> {
      await insertTogether(db, parts());
    },
  };
}
export type CounterDeltas = ReturnType<typeof createCounterDeltas>;

/**
 * Log entries and the per-(type, status) counters beside them. Every write of
 * an entry goes through here so the counters can never drift from the log.
 */
export function createLogsRepository(db: Db, pending?: CounterDeltas) {
  return {
    /**
     * Inserts entries (of any workspaces), their tag filter's rows, and counts them. Call inside a transaction.
     * `alongside`: other tables' rows, inserted before the entries and, on PostgreSQL, in the same statement.
     * `lastCount`: nothing after this in the transaction changes a counter, so on PostgreSQL the
     * transaction's counter changes go in that statement too, rather than in one of their own at its end
     * (the send path: a round trip fewer for every batch of sends).
     * `lastStatement` (with `lastCount`): nothing after this in the transaction runs a statement, so on
     * PostgreSQL its COMMIT goes right behind this one (endsTransaction): another round trip fewer.
     */
    async insertMany(entries: LogEntryRow[], alongside: InsertPart[] = [], { lastCount = false, lastStatement = false } = {}): Promise<void> {
      const counts = pending ?? createCounterDeltas();
      for (const { workspace_id, type, status, created_at } of entries) counts.add(workspace_id, type, status, 1, created_at);
      const together = storeKindOfDb(db) === 'postgres' && (lastCount || !pending);
      // The tags after their entries: on PostgreSQL in the same statement, whose foreign keys are checked at its end.
      const parts = [...alongside, ...(together ? counts.take() : []), insertEntries.part(entries), insertTags.part(tagRowsOf(entries))];
      await insertTogether(db, parts, { lastStatement: lastStatement && together });
      if (lastCount) counts.seal();
      if (!pending && !together) await counts.apply(db);
    },

    /** The `send` entry (or another type's) of one recipient of one message (recipients are stored as given, compared as given). */
    async findSendEntry(messageId: string, recipient: string, type: LogType = 'send'): Promise<LogEntryRow | undefined> {
      return db
        .selectFrom('log_entries')
        .selectAll()
        .where('message_id', '=', messageId)
        .where('recipient', '=', recipient)
        .where('type', '=', type)
        .executeTakeFirst();
    },

    /**
     * Every `send` entry of the given messages: one per recipient, each message's in request order.
     * Through the message index whatever the statistics say (the worker asks for 64 messages at a time).
     */
    async listSendEntries(messageIds: string[]): Promise<LogEntryRow[]> {
      if (messageIds.length === 0) return [];
      return lookUpByIndex(db, (on) => on.selectFrom('log_entries').selectAll().where('message_id', 'in', messageIds).where('type', '=', 'send').orderBy('id').execute());
    },

    /**
     * Moves an entry from `from` to `to` if it is still at `from`, and its
     * counters with it (one down, one up). False, and nothing changed, when
     * another writer moved it first: the caller judges again from what is
     * there now. Call inside a transaction.
     */
    async moveStatus(
      entry: Pick<LogEntryRow, 'id' | 'workspace_id' | 'type' | 'created_at'>,
      from: LogStatus,
      to: LogStatus,
      error: string | null,
      now: string,
    ): Promise<boolean> {
      const moved = await db
        .updateTable('log_entries')
        .set({ status: to, error, updated_at: now })
        .where('id', '=', entry.id)
        .where('status', '=', from)
        .executeTakeFirst();
      if (moved.numUpdatedRows === 0n) return false;
      // Counted where the entry was created, so counts over a time range keep agreeing with the log.
      const counts = pending ?? createCounterDeltas();
      counts.add(entry.workspace_id, entry.type, from, -1, entry.created_at);
      counts.add(entry.workspace_id, entry.type, to, 1, entry.created_at);
      if (!pending) await counts.apply(db);
      return true;
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    logs: ReturnType<typeof createLogsRepository>;
  }
}
