/**
 * The time series drawn by uPlot, in a chunk of its own that the Overview
 * imports when it opens (MailChart.tsx), so a first visit to any page does
 * not carry the charting library. Drawing only: the caption, the legend and the text
 * alternative are the Overview's, in the main bundle.
 */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Interval } from './period';
import { bucketLabel, CHART_SERIES } from './series';
import type { Bucket } from './stats';
import { timeTicks } from './time-ticks';

const INK = '#5b6675';
const GRID = '#e6e9ee';
/** Whole numbers only on the count axis: there is no half a message. */
const COUNT_STEPS = [1, 2, 5].flatMap((m) => Array.from({ length: 10 }, (_, e) => m * 10 ** e)).sort((a, b) => a - b);

const heightFor = (width: number) => (width < 500 ? 220 : 280);

const DAY_S = 86_400;
const BUCKET_S: Record<Interval, number> = { hour: 3_600, day: DAY_S };
const UTC_DATE = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' });
const UTC_TIME = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** A tick of the time axis, in UTC like the buckets: the date at midnight, the time of day otherwise (24-hour, as the table). */
function tickLabel(seconds: number): string {
  const date = new Date(seconds * 1000);
  return seconds % DAY_S === 0 ? UTC_DATE.format(date) : UTC_TIME.format(date);
}

function optionsOf(width: number, interval: Interval, onHover: (index: number | null) => void): uPlot.Options {
  const axis = { stroke: INK, grid: { stroke: GRID, width: 1 }, ticks: { stroke: GRID, width: 1 }, font: '12px system-ui, sans-serif' };
  return {
    width,
    height: heightFor(width),
    // Buckets are UTC hours and days: ticks fall on UTC hours and midnights rather than the browser's. A
    // Date shifted by the zone's offset reads UTC in its local fields, which is what uPlot.tzDate(…, 'Etc/UTC')
    // makes too, by writing each date out as text in that zone and reading it back.
    tzDate: (seconds) => {
      const date = new Date(seconds * 1000);
      return new Date(date.getTime() + date.getTimezoneOffset() * 60_000);
    },
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { size: 7 } },
    scales: { y: { range: (_u, _min, max) => [0, max > 0 ? Math.ceil(max * 1.1) : 1] } },
    axes: [
      {
        ...axis,
        space: interval === 'hour' ? 60 : 50,
        splits: (u, _axis, min, _max, spacing) => timeTicks(min, u.data[0].at(-1) ?? min, spacing, BUCKET_S[interval]),
        values: (_u, splits) => splits.map(tickLabel),
      },
      { ...axis, incrs: COUNT_STEPS, size: 56, values: (_u, splits) => splits.map((v) => v.toLocaleString()) },
    ],
    series: [{}, ...CHART_SERIES.map((s) => ({ label: s.label, stroke: s.colour, width: 2, dash: s.dash, points: { size: 5 } }))],
    hooks: { setCursor: [(u) => onHover(u.cursor.idx ?? null)] },
  };
}

function dataOf(buckets: readonly Bucket[]): uPlot.AlignedData {
  return [buckets.map((b) => Date.parse(b.bucket_start) / 1000), ...CHART_SERIES.map((s) => buckets.map((b) => b[s.field]))];
}

export default function SeriesChart({ buckets, interval }: { buckets: readonly Bucket[]; interval: Interval }) {
  const box = useRef<HTMLDivElement>(null);
  const [hovered, setHovered] = useState<number | null>(null);

  useEffect(() => {
    const element = box.current!;
    let width = element.clientWidth;
    const chart = new uPlot(optionsOf(width, interval, setHovered), dataOf(buckets), element);
    // The chart follows its box's width (a phone turned, a window resized); its own height changes are no cause.
    const observer = new ResizeObserver(() => {
      if (element.clientWidth === width) return;
      width = element.clientWidth;
      chart.setSize({ width, height: heightFor(width) });
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
  }, [buckets, interval]);

  const at = hovered === null ? undefined : buckets[hovered];
  return (
    <>
      {/* What the pointer is over, for sighted users with a mouse: the table below says the same to everyone. */}
      <p className="chart-readout small" aria-hidden="true">
        {at ? `${bucketLabel(at.bucket_start, interval)}: ${CHART_SERIES.map((s) => `${s.label} ${at[s.field].toLocaleString()}`).join(' · ')}` : `Point at the chart for a${interval === 'hour' ? 'n hour' : ' day'}'s numbers.`}
      </p>
      <div ref={box} className="chart-plot" />
    </>
  );
}
