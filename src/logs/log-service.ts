import { ValidationError } from '../lib/errors.js';
import type { Store } from '../db/store.js';
import { parseTagFilter } from '../lib/tags.js';
import { parseRange } from '../lib/time-range.js';
import { countedOffIndex } from './log-page-json.js';
import { EXACT_COUNT_LIMIT, type LogFilter } from './log-search-repository.js';

export type { LogEntryView } from './log-search-repository.js';

/** GET /v1/send/logs's query: SPEC.md's paging and filters, and the search filters, `since`/`until` as given. */
export interface LogQuery extends Omit<LogFilter, 'since' | 'until' | 'tag'> {
  limit: number;
  offset: number;
  /** A log entry's id: the page starts after it (keyset paging, as fast at any depth). */
  before?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  /** `name:value`. */
  tag?: string | undefined;
}

/** A total, and whether it is exact (`eq`) or a lower bound (`gte`: more entries match than were counted). */
export interface LogTotal {
  count: number;
  relation: 'eq' | 'gte';
}

export function createLogService(store: Store) {
  return {
    /**
     * A page of entries, newest first, as the JSON text the API answers, and
     * how many match in all: exactly from the counters when the filter is only
     * type, status and a time range; counted off the filter's index when it
     * names a message, a recipient, a sender or a tag, exactly up to
     * EXACT_COUNT_LIMIT and as a lower bound beyond it (Elasticsearch's
     * `gte`). Page and total come from one statement, so they agree.
     */
    async list(workspaceId: string, query: LogQuery): Promise<{ entries: string; total: LogTotal }> {
      const { limit, offset, type, status, message_id, to, from_email } = query;
      const tag = query.tag === undefined ? undefined : parseTagFilter(query.tag);
      const filter: LogFilter = { type, status, message_id, to, from_email, tag, ...parseRange(query) };
      const after = query.before === undefined ? undefined : await store.logSearch.cursorOf(workspaceId, query.before);
      if (query.before !== undefined && !after) throw new ValidationError('before must be the id of a log entry of this workspace');
      const { entries, total } = await store.logSearch.pageJson(workspaceId, filter, limit, offset, after);
      return { entries, total: countedOffIndex(filter) && total > EXACT_COUNT_LIMIT ? { count: EXACT_COUNT_LIMIT, relation: 'gte' } : { count: total, relation: 'eq' } };
    },
  };
}
