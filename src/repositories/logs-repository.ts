import type { Db } from '../db/database.js';
import type { LogCountersTable, LogEntriesTable, LogStatus, LogType } from '../db/schema.js';
import { compileOnce } from '../db/compiled-query.js';
import { bulkInsert } from './bulk-insert.js';

export type LogEntryRow = LogEntriesTable;
export interface LogFilter {
  type?: LogType | undefined;
  status?: LogStatus | undefined;
}
export interface CounterRow {
  type: LogType;
  status: LogStatus;
  count: number;
}

// Both run on every accepted send.
const insertEntries = bulkInsert('log_entries', [
  'id', 'workspace_id', 'message_id', 'type', 'status', 'recipient', 'from_email', 'subject', 'error', 'created_at', 'updated_at',
]);
const bumpCounter = compileOnce(
  (db: Db, row: LogCountersTable) =>
    db
      .insertInto('log_counters')
      .values({ workspace_id: row.workspace_id, type: row.type, status: row.status, count: row.count })
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'type', 'status']).doUpdateSet((eb) => ({
          count: eb('log_counters.count', '+', eb.ref('excluded.count')),
        })),
      ),
  (row) => [row.workspace_id, row.type, row.status, row.count],
);

/**
 * Counter changes gathered over one transaction and applied at its end, added
 * up and in one order (workspace, type, status). Applied as they came, two
 * transactions moving entries of two workspaces, or from different statuses,
 * took the same counter rows' locks in opposite orders and deadlocked on
 * PostgreSQL; in one order they queue instead.
 */
export function createCounterDeltas() {
  const deltas = new Map<string, LogCountersTable>();
  return {
    add(workspace_id: string, type: LogType, status: LogStatus, count: number): void {
      const key = `${workspace_id}\0${type}\0${status}`;
      const delta = deltas.get(key) ?? { workspace_id, type, status, count: 0 };
      delta.count += count;
      deltas.set(key, delta);
    },
    async apply(db: Db): Promise<void> {
      const keys = [...deltas.keys()].sort();
      for (const key of keys) {
        const delta = deltas.get(key)!;
        if (delta.count !== 0) await bumpCounter(db, delta);
      }
      deltas.clear();
    },
  };
}
export type CounterDeltas = ReturnType<typeof createCounterDeltas>;

/**
 * Log entries and the per-(type, status) counters beside them. Every write of
 * an entry goes through here so the counters can never drift from the log.
 */
export function createLogsRepository(db: Db, pending?: CounterDeltas) {
  // Inside a transaction the counters move at its end (see createCounterDeltas); outside one, at once.
  const bump = async (workspace: string, type: LogType, status: LogStatus, count: number) => {
    if (pending) return pending.add(workspace, type, status, count);
    await bumpCounter(db, { workspace_id: workspace, type, status, count });
  };
  return {
    /** Inserts entries (of any workspaces) and counts them. Call inside a transaction. */
    async insertMany(entries: LogEntryRow[]): Promise<void> {
      await insertEntries(db, entries);
      const counts = pending ?? createCounterDeltas();
      for (const { workspace_id, type, status } of entries) counts.add(workspace_id, type, status, 1);
      if (!pending) await counts.apply(db);
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

    /** Every `send` entry of the given messages: one per recipient, each message's in request order. */
    async listSendEntries(messageIds: string[]): Promise<LogEntryRow[]> {
      if (messageIds.length === 0) return [];
      return db.selectFrom('log_entries').selectAll().where('message_id', 'in', messageIds).where('type', '=', 'send').orderBy('id').execute();
    },

    /**
     * Moves an entry from `from` to `to` if it is still at `from`, and its
     * counters with it (one down, one up). False, and nothing changed, when
     * another writer moved it first: the caller judges again from what is
     * there now. Call inside a transaction.
     */
    async moveStatus(entry: Pick<LogEntryRow, 'id' | 'workspace_id' | 'type'>, from: LogStatus, to: LogStatus, error: string | null, now: string): Promise<boolean> {
      const moved = await db
        .updateTable('log_entries')
        .set({ status: to, error, updated_at: now })
        .where('id', '=', entry.id)
        .where('status', '=', from)
        .executeTakeFirst();
      if (moved.numUpdatedRows === 0n) return false;
      await bump(entry.workspace_id, entry.type, from, -1);
      await bump(entry.workspace_id, entry.type, to, 1);
      return true;
    },

    async list(workspaceId: string, filter: LogFilter, limit: number, offset: number): Promise<LogEntryRow[]> {
      let query = db.selectFrom('log_entries').selectAll().where('workspace_id', '=', workspaceId);
      if (filter.type) query = query.where('type', '=', filter.type);
      if (filter.status) query = query.where('status', '=', filter.status);
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
    },

    /** At most one row per (type, status) pair: a read whose cost does not grow with the log. */
    async counters(workspaceId: string): Promise<CounterRow[]> {
      const rows = await db
        .selectFrom('log_counters')
        .select(['type', 'status', 'count'])
        .where('workspace_id', '=', workspaceId)
        .execute();
      return rows.map((r) => ({ type: r.type, status: r.status, count: Number(r.count) }));
    },
  };
}
