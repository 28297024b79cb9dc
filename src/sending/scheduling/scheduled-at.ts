import { ValidationError } from '../../lib/errors.js';
import { DAY_MS } from '../../lib/time-range.js';

/** How far ahead a send may be scheduled (issue 16, point 8; Resend allows 30 days too). */
export const MAX_SCHEDULE_AHEAD_MS = 30 * DAY_MS;

/**
 * A date and time with its offset, so the instant is never a guess about the
 * caller's time zone: `2026-11-25T10:00:00Z`, `2026-11-25T11:00+01:00`.
 */
const WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|([+-])(\d{2}):?(\d{2}))$/i;

function invalid(value: string): ValidationError {
  return new ValidationError(
    `scheduled_at must be an ISO 8601 date and time with an offset, such as 2026-11-25T10:00:00Z or 2026-11-25T11:00:00+01:00 (got ${JSON.stringify(value)})`,
  );
}

/**
 * The instant a send is held until, as ISO 8601 UTC text (what the delivery
 * job's `available_at` holds), or null when the send goes at once. A time
 * already past is not an error: a client whose clock is a little behind ours
 * must not see its send refused; it goes at once, like an unscheduled one.
 */
export function parseScheduledAt(value: string | null | undefined, nowMs: number): string | null {
  if (value === undefined || value === null) return null;
  const text = value.trim();
  const match = WITH_OFFSET.exec(text);
  if (!match) throw invalid(value);
  const [, year, month, day, hour, minute, second = '0', , sign, offsetHours = '0', offsetMinutes = '0'] = match;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59 || Number(offsetMinutes) > 59) throw invalid(value);
  const ms = Date.parse(text);
  // Date.parse takes 2026-02-30 for 2 March: the day written, seen from its own offset, must be the day parsed.
  const offsetMs = sign ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000 : 0;
  const local = new Date(ms + offsetMs);
  if (Number.isNaN(ms) || local.getUTCFullYear() !== Number(year) || local.getUTCMonth() + 1 !== Number(month) || local.getUTCDate() !== Number(day)) {
    throw invalid(value);
  }
  if (ms - nowMs > MAX_SCHEDULE_AHEAD_MS) throw new ValidationError(`scheduled_at must be at most 30 days ahead (got ${new Date(ms).toISOString()})`);
  return new Date(ms).toISOString();
}
