import type { Repositories } from '../repositories/index.js';
import { ceilTo, floorTo, HOUR_MS, type TimeRange } from '../time-range.js';
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

/**
 * How many log entries created in `range` there are per (type, status), from
 * the counters alone where they can answer: the whole hours inside the range
 * from the hourly counts (one row per hour), and only the part
 * hours at its ends by counting entries, so the cost grows with the hours in
 * the range, not with the entries. Exact: the hourly counters move in the
 * transactions that write and move the entries, as the all-time ones do.
 */
export async function countsInRange(repos: Pick<Repositories, 'counters'>, workspaceId: string, range: TimeRange): Promise<CounterRow[]> {
  const { since, until } = range;
  if (since === undefined && until === undefined) return repos.counters.totals(workspaceId);
  const firstWholeHour = since === undefined ? undefined : ceilTo(since, HOUR_MS);
  const endOfWholeHours = until === undefined ? undefined : floorTo(until, HOUR_MS);
  // No whole hour inside (both ends in one hour, or in two adjacent ones): count the entries.
  if (since !== undefined && until !== undefined && firstWholeHour! >= endOfWholeHours!) {
    return repos.counters.entriesBetween(workspaceId, since, until);
  }
  const parts = [await repos.counters.hourlyTotals(workspaceId, firstWholeHour, endOfWholeHours)];
  if (since !== undefined && since < firstWholeHour!) parts.push(await repos.counters.entriesBetween(workspaceId, since, firstWholeHour!));
  if (until !== undefined && endOfWholeHours! < until) parts.push(await repos.counters.entriesBetween(workspaceId, endOfWholeHours!, until));
  return mergeCounts(...parts);
}
