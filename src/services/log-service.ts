import type { LogStatus, LogType } from '../db/schema.js';
import type { Store } from '../repositories/index.js';
import type { CounterRow, LogEntryRow, LogFilter } from '../repositories/logs-repository.js';

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
}

export interface Stats {
  total_sent: number;
  delivered: number;
  bounced: number;
  complained: number;
  suppressed: number;
  failed: number;
}

export interface LogQuery extends LogFilter {
  limit: number;
  offset: number;
}

function view(row: LogEntryRow): LogEntryView {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    to: row.recipient,
    from_email: row.from_email,
    subject: row.subject,
    message_id: row.message_id,
    error: row.error,
    created_at: row.created_at,
  };
}

function sum(counters: CounterRow[], filter: LogFilter): number {
  return counters
    .filter((c) => (!filter.type || c.type === filter.type) && (!filter.status || c.status === filter.status))
    .reduce((total, c) => total + c.count, 0);
}

export function createLogService(store: Store) {
  return {
    /** A page of entries, newest first, and how many match in all (read from the counters, not COUNT(*)). */
    async list(workspaceId: string, query: LogQuery): Promise<{ entries: LogEntryView[]; total: number }> {
      const filter = { type: query.type, status: query.status };
      // One snapshot, so a send committed in between cannot make the page and its total disagree.
      const [rows, counters] = await store.snapshot((repos) =>
        Promise.all([repos.logs.list(workspaceId, filter, query.limit, query.offset), repos.logs.counters(workspaceId)]),
      );
      return { entries: rows.map(view), total: sum(counters, filter) };
    },

    /** Derived as the README's "Statistics" section states; each field equals a log filter's total. */
    async stats(workspaceId: string): Promise<Stats> {
      const counters = await store.logs.counters(workspaceId);
      return {
        total_sent: sum(counters, { type: 'send' }),
        delivered: sum(counters, { type: 'send', status: 'delivered' }),
        bounced: sum(counters, { type: 'send', status: 'bounced' }),
        complained: sum(counters, { type: 'complaint' }),
        suppressed: sum(counters, { type: 'send', status: 'suppressed' }),
        failed: sum(counters, { type: 'send', status: 'failed' }),
      };
    },
  };
}
