/**
 * The Overview chart's time axis labels the hour (or day) now under way,
 * which uPlot's round multiples mostly miss, without two labels colliding.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { timeTicks } from '../web/src/features/overview/time-ticks.js';

const HOUR = 3_600;
const DAY = 86_400;
const at = (iso: string) => Date.parse(iso) / 1000;
const iso = (ticks: number[]) => ticks.map((t) => new Date(t * 1000).toISOString().slice(5, 16));

describe("the Overview chart's time ticks", () => {
  it('labels the last hour of 24, dropping the round hour less than a spacing before it', () => {
    const first = at('2026-12-01T18:00:00Z');
    const last = at('2026-12-02T17:00:00Z');
    assert.deepEqual(iso(timeTicks(first, last, 2 * HOUR, HOUR)), [
      '12-01T18:00', '12-01T20:00', '12-01T22:00', '12-02T00:00', '12-02T02:00', '12-02T04:00', '12-02T06:00',
      '12-02T08:00', '12-02T10:00', '12-02T12:00', '12-02T14:00', '12-02T17:00',
    ]);
  });

  it('keeps the round multiples as they are when the last hour is one of them', () => {
    const ticks = timeTicks(at('2026-12-01T19:00:00Z'), at('2026-12-02T18:00:00Z'), 6 * HOUR, HOUR);
    assert.deepEqual(iso(ticks), ['12-02T00:00', '12-02T06:00', '12-02T12:00', '12-02T18:00']);
  });

  it('never puts two labels closer than the spacing uPlot found room for', () => {
    for (let hour = 0; hour < 24; hour++) {
      const last = at('2026-12-02T00:00:00Z') + hour * HOUR;
      for (const spacing of [HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR]) {
        const ticks = timeTicks(last - 23 * HOUR, last, spacing, HOUR);
        assert.equal(ticks.at(-1), last, 'the last hour labelled');
        for (let i = 1; i < ticks.length; i++) assert.ok(ticks[i]! - ticks[i - 1]! >= spacing, `${iso(ticks)} at ${spacing / HOUR} h`);
      }
    }
  });

  it('labels whole buckets only: no half hours, and days at midnight', () => {
    assert.deepEqual(iso(timeTicks(at('2026-12-02T10:00:00Z'), at('2026-12-02T12:00:00Z'), 1_800, HOUR)), ['12-02T10:00', '12-02T11:00', '12-02T12:00']);
    const days = timeTicks(at('2026-11-03T00:00:00Z'), at('2026-12-02T00:00:00Z'), 5 * DAY, DAY);
    assert.equal(days.at(-1), at('2026-12-02T00:00:00Z'));
    assert.ok(days.every((t) => t % DAY === 0), iso(days).join(', '));
  });
});
