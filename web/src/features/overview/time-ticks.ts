/**
 * Where the chart's time axis has its labels: every `spacing` seconds (what
 * uPlot found room for, rounded up to whole buckets) on the UTC multiples of
 * it, as uPlot places them, and always at the last bucket, the hour or day
 * now under way, which those multiples mostly miss. A multiple less than a
 * spacing before it is left out, so that no two labels collide.
 */
export function timeTicks(first: number, last: number, spacing: number, bucket: number): number[] {
  const step = Math.max(1, Math.ceil(spacing / bucket)) * bucket;
  const ticks: number[] = [];
  for (let at = Math.ceil(first / step) * step; at <= last - step; at += step) ticks.push(at);
  ticks.push(last);
  return ticks;
}
