/**
 * The logs explorer's view as the address carries it, under /v1/send/logs's
 * own parameter names, so that a link reproduces the view and the same
 * object is the API's query.
 */
export interface LogFilters {
  status: string;
  type: string;
  to: string;
  from_email: string;
  message_id: string;
  /** ISO 8601 instants. */
  since: string;
  until: string;
  /** The cursor: the page starts after this entry (keyset paging, as fast at any depth). */
  before: string;
  /** /v1's offset, for links that carry one; the explorer pages with `before`. */
  offset: number;
}

const FILTERS = ['status', 'type', 'to', 'from_email', 'message_id', 'since', 'until'] as const;
/** The filters and where the page starts. */
const TEXT_FILTERS = [...FILTERS, 'before'] as const;
export const NO_FILTERS: LogFilters = { status: '', type: '', to: '', from_email: '', message_id: '', since: '', until: '', before: '', offset: 0 };

export function filtersOfSearch(search: string): LogFilters {
  const query = new URLSearchParams(search);
  const filters = { ...NO_FILTERS, offset: Math.max(0, Number(query.get('offset')) || 0) };
  for (const name of TEXT_FILTERS) filters[name] = query.get(name) ?? '';
  return filters;
}

/** The query string of a view: only what is set, in a fixed order. */
export function searchOfFilters(filters: LogFilters): string {
  const query = new URLSearchParams();
  for (const name of TEXT_FILTERS) if (filters[name]) query.set(name, filters[name]);
  if (filters.offset > 0) query.set('offset', String(filters.offset));
  const text = query.toString();
  return text ? `?${text}` : '';
}

export function isFiltered(filters: LogFilters): boolean {
  return FILTERS.some((name) => filters[name] !== '');
}

/** The same filters from the newest entry on. */
export function firstPageOf(filters: LogFilters): LogFilters {
  return { ...filters, before: '', offset: 0 };
}

/** `<input type="datetime-local">` speaks local wall-clock time without a zone; the address keeps instants. */
export function localInputOf(iso: string): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

export function isoOfLocalInput(local: string): string {
  return local ? new Date(local).toISOString() : '';
}
