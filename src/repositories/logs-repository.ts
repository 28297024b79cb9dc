import type { Db } from '../db/database.js';
import { powerOfTwoChunks } from './chunks.js';
import type { LogEntriesTable, LogStatus, LogType } from '../db/schema.js';

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
  async function bumpCounters(deltas: Map<string, number>): Promise<void> {
    for (const [key, delta] of deltas) {
      const [workspaceId, type, status] = key.split(' ') as [string, LogType, LogStatus];
      await db
        .insertInto('log_counters')
        .values({ workspace_id: workspaceId, type, status, count: delta })
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
      const deltas = new Map<string, number>();
      for (const entry of entries) {
        const key = `${entry.workspace_id} ${entry.type} ${entry.status}`;
        deltas.set(key, (deltas.get(key) ?? 0) + 1);
      }
      await bumpCounters(deltas);
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
