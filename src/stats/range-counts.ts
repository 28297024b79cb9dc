import type { Repositories } from '../db/store.js';
import { ceilTo, floorTo, HOUR_MS, type TimeRange } from '../lib/time-range.js';
import type { CounterRow } from './counters-repository.js';

/** Adds up rows of the same (type, status). */
export function mergeCounts(...parts: CounterRow[][]): CounterRow[] {
  const merged = new Map<string, CounterRow>();
  for (const row of parts.flat()) {
    const key = `${row.type}\0${row.status}`;
    const existing = merged.get(key);
    if (existing) existing.count += row.count;
    else merged.set(key, { ...row });
  }
  return [...merged.values()];
}

/** What a range's counts are read from: its whole hours (either end open), and the spans of less than an hour at its ends. */
export interface RangeParts {
  hours: { from: string | undefined; to: string | undefined } | null;
  spans: Array<[string, string]>;
}

/**
 * The whole hours inside `range`, counted from the hourly counts, and the
 * part hours at its ends, counted entry by entry: so the cost of a count
 * grows with the hours in the range, not with the entries.
 */
export function rangeParts({ since, until }: TimeRange): RangeParts {
  const firstWholeHour = since === undefined ? undefined : ceilTo(since, HOUR_MS);
  const endOfWholeHours = until === undefined ? undefined : floorTo(until, HOUR_MS);
  // No whole hour inside (both ends in one hour, or in two adjacent ones): only entries.
  if (since !== undefined && until !== undefined && firstWholeHour! >= endOfWholeHours!) return { hours: null, spans: [[since, until]] };
  const spans: Array<[string, string]> = [];
  if (since !== undefined && since < firstWholeHour!) spans.push([since, firstWholeHour!]);
  if (until !== undefined && endOfWholeHours! < until) spans.push([endOfWholeHours!, until]);
  return { hours: { from: firstWholeHour, to: endOfWholeHours }, spans };
}

/**
 * How many log entries created in `range` there are per (type, status), from
 * the counts alone where they can answer (rangeParts). Exact: the hourly
 * counts move in the transactions that write and move the entries, as the
 * all-time ones do.
 */
export async function countsInRange(repos: Pick<Repositories, 'counters'>, workspaceId: string, range: TimeRange): Promise<CounterRow[]> {
  if (range.since === undefined && range.until === undefined) return repos.counters.totals(workspaceId);
  const { hours, spans } = rangeParts(range);
  const parts = hours ? [await repos.counters.hourlyTotals(workspaceId, hours.from, hours.to)] : [];
  for (const [since, until] of spans) parts.push(await repos.counters.entriesBetween(workspaceId, since, until));
  return mergeCounts(...parts);
}
