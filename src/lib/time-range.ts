import { ValidationError } from './errors.js';

/**
 * Instants and ranges as the API takes them (`since`, `until`): ISO 8601,
 * compared with the ISO 8601 UTC text every table stores (`created_at`), so a
 * parsed instant is turned into that same form.
 */

/** A date, or a date and time with an optional offset: `2026-11-22`, `2026-11-22T10:00Z`, `2026-11-22T11:00:00.5+01:00`. */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

function invalid(field: string): ValidationError {
  return new ValidationError(`${field} must be an ISO 8601 date or date-time, such as 2026-11-22 or 2026-11-22T10:00:00Z`);
}

/**
 * The instant `value` names, as ISO 8601 UTC text with milliseconds. Without
 * an offset it is UTC. Checked field by field: `Date.parse` would take
 * 2026-02-30 for 2 March.
 */
export function parseInstant(value: string, field: string): string {
  const match = ISO_8601.exec(value.trim());
  if (!match) throw invalid(field);
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', offset = 'Z'] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const local = Date.UTC(year, month - 1, day, hour, minute, second, Number(fraction.padEnd(3, '0').slice(0, 3)));
  const back = new Date(local);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    throw invalid(field);
  }
  let offsetMs = 0;
  if (offset.toUpperCase() !== 'Z') {
    const digits = offset.replace(':', '');
    const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
    if (Number(digits.slice(3, 5)) > 59) throw invalid(field);
    offsetMs = (digits[0] === '-' ? -1 : 1) * minutes * 60_000;
  }
  return new Date(local - offsetMs).toISOString();
}

/** `[since, until)`, either end open when absent. */
export interface TimeRange {
  since?: string | undefined;
  until?: string | undefined;
}

/** The range the query names, each end parsed; `until` must come after `since`. */
export function parseRange(query: { since?: string | undefined; until?: string | undefined }): TimeRange {
  const since = query.since === undefined ? undefined : parseInstant(query.since, 'since');
  const until = query.until === undefined ? undefined : parseInstant(query.until, 'until');
  if (since !== undefined && until !== undefined && until <= since) throw new ValidationError('until must be later than since');
  return { since, until };
}

/** The start of the interval holding `iso` (hours and days in UTC). */
export function floorTo(iso: string, intervalMs: number): string {
  return new Date(Math.floor(Date.parse(iso) / intervalMs) * intervalMs).toISOString();
}

/** The first interval boundary at or after `iso`. */
export function ceilTo(iso: string, intervalMs: number): string {
  return new Date(Math.ceil(Date.parse(iso) / intervalMs) * intervalMs).toISOString();
}

export function addMs(iso: string, ms: number): string {
  return new Date(Date.parse(iso) + ms).toISOString();
}
