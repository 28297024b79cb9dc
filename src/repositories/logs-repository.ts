import type { Db } from '../db/database.js';
import type { LogCountersTable, LogEntriesTable, LogStatus, LogType } from '../db/schema.js';
import { powerOfTwoChunks } from './chunks.js';

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

/**
 * Log entries and the per-(type, status) counters beside them. Every write of
 * an entry goes through here so the counters can never drift from the log.
 */
export function createLogsRepository(db: Db) {
  async function bumpCounters(deltas: Iterable<LogCountersTable>): Promise<void> {
    for (const row of deltas) {
      await db
        .insertInto('log_counters')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['workspace_id', 'type', 'status']).doUpdateSet((eb) => ({
            count: eb('log_counters.count', '+', eb.ref('excluded.count')),
          })),
        )
        .execute();
    }
  }

  return {
    /** Inserts entries (of any workspaces) and counts them. Call inside a transaction. */
    async insertMany(entries: LogEntryRow[]): Promise<void> {
      for (const chunk of powerOfTwoChunks(entries)) await db.insertInto('log_entries').values(chunk).execute();
      const deltas = new Map<string, LogCountersTable>();
      for (const { workspace_id, type, status } of entries) {
        const key = `${workspace_id}\0${type}\0${status}`;
        const delta = deltas.get(key) ?? { workspace_id, type, status, count: 0 };
        delta.count += 1;
        deltas.set(key, delta);
      }
      await bumpCounters(deltas.values());
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
