import type { Repositories, Store } from '../repositories/index.js';
import { countsInRange } from '../stats/range-counts.js';
import { sumMatching } from '../stats/stats.js';
import { parseRange } from '../time-range.js';
import { EXACT_COUNT_LIMIT, type LogEntryView, type LogFilter } from './log-search-repository.js';

export type { LogEntryView } from './log-search-repository.js';

/** GET /v1/send/logs's query: SPEC.md's paging and filters, and the search filters, `since`/`until` as given. */
export interface LogQuery extends Omit<LogFilter, 'since' | 'until'> {
  limit: number;
  offset: number;
  since?: string | undefined;
  until?: string | undefined;
}

/** A total, and whether it is exact (`eq`) or a lower bound (`gte`: more entries match than were counted). */
export interface LogTotal {
  count: number;
  relation: 'eq' | 'gte';
}

/**
 * How many entries match: from the counters, exactly, when the filter is only
 * type, status and a time range (constant, or growing with the hours in the
 * range); by counting off the filter's index when it names a message, a
 * recipient or a sender, exactly up to EXACT_COUNT_LIMIT and as a lower bound
 * beyond it (Elasticsearch's `gte`).
 */
async function totalOf(repos: Repositories, workspaceId: string, filter: LogFilter): Promise<LogTotal> {
  if (filter.message_id !== undefined || filter.to !== undefined || filter.from_email !== undefined) {
    const counted = await repos.logSearch.count(workspaceId, filter, EXACT_COUNT_LIMIT);
    return counted > EXACT_COUNT_LIMIT ? { count: EXACT_COUNT_LIMIT, relation: 'gte' } : { count: counted, relation: 'eq' };
  }
  return { count: sumMatching(await countsInRange(repos, workspaceId, filter), filter), relation: 'eq' };
}

export function createLogService(store: Store) {
  return {
    /** A page of entries, newest first, and how many match in all. */
    async list(workspaceId: string, query: LogQuery): Promise<{ entries: LogEntryView[]; total: LogTotal }> {
      const { limit, offset, type, status, message_id, to, from_email } = query;
      const filter: LogFilter = { type, status, message_id, to, from_email, ...parseRange(query) };
      // One snapshot, so a send committed in between cannot make the page and its total disagree.
      return store.snapshot(async (repos) => {
        const [rows, total] = await Promise.all([repos.logSearch.page(workspaceId, filter, limit, offset), totalOf(repos, workspaceId, filter)]);
        return { entries: rows, total };
      });
    },
  };
}
