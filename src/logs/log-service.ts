import type { LogEntriesTable, LogStatus, LogType } from '../db/schema.js';
import type { Repositories, Store } from '../repositories/index.js';
import { countsInRange } from '../stats/range-counts.js';
import { sumMatching } from '../stats/stats.js';
import { parseRange } from '../time-range.js';
import type { LogFilter } from './log-search-repository.js';

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

/** GET /v1/send/logs's query: SPEC.md's paging and filters, and the search filters, `since`/`until` as given. */
export interface LogQuery extends Omit<LogFilter, 'since' | 'until'> {
  limit: number;
  offset: number;
  since?: string | undefined;
  until?: string | undefined;
}

function view(row: LogEntriesTable): LogEntryView {
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

/**
 * How many entries match: from the counters when the filter is only type,
 * status and a time range (constant, or growing with the hours in the range);
 * by counting off the filter's index when it names a message, a recipient or
 * a sender.
 */
async function totalOf(repos: Repositories, workspaceId: string, filter: LogFilter): Promise<number> {
  if (filter.message_id !== undefined || filter.to !== undefined || filter.from_email !== undefined) return repos.logSearch.count(workspaceId, filter);
  return sumMatching(await countsInRange(repos, workspaceId, filter), filter);
}

export function createLogService(store: Store) {
  return {
    /** A page of entries, newest first, and how many match in all. */
    async list(workspaceId: string, query: LogQuery): Promise<{ entries: LogEntryView[]; total: number }> {
      const { limit, offset, type, status, message_id, to, from_email } = query;
      const filter: LogFilter = { type, status, message_id, to, from_email, ...parseRange(query) };
      // One snapshot, so a send committed in between cannot make the page and its total disagree.
      return store.snapshot(async (repos) => {
        const [rows, total] = await Promise.all([repos.logSearch.page(workspaceId, filter, limit, offset), totalOf(repos, workspaceId, filter)]);
        return { entries: rows.map(view), total };
      });
    },
  };
}
