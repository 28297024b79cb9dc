import { monotonicFactory } from 'ulid';

/**
 * Identifiers are `<prefix>_<ULID>`: unique, URL-safe and sortable by creation
 * time (the monotonic factory keeps ids made in the same millisecond ordered).
 */
const nextUlid = monotonicFactory();

export type IdPrefix = 'ws' | 'key' | 'dom' | 'msg' | 'log' | 'job';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}

/** Timestamps are ISO 8601 UTC with milliseconds, e.g. `2026-11-22T10:00:00.000Z`. */
export function nowIso(): string {
  return new Date().toISOString();
}
