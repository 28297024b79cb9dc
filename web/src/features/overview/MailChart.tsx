import { useEffect, useState, type ComponentType } from 'react';
import type { Interval } from './period';
import { CHART_SERIES, seriesSummary } from './series';
import { SeriesTable } from './SeriesTable';
import type { Bucket } from './stats';

type ChartProps = { buckets: readonly Bucket[]; interval: Interval };

/**
 * uPlot and the drawing code, a chunk of their own (not part of a first
 * visit's JavaScript), fetched as the page opens, alongside the series. Not
 * React.lazy: React holds a Suspense boundary's content back for up to 300 ms
 * after its fallback showed, to reveal several together, and that was most of
 * the Overview's time to interactive (bench:dashboard).
 */
function useChart(): ComponentType<ChartProps> | 'failed' | undefined {
  const [chart, setChart] = useState<ComponentType<ChartProps> | 'failed'>();
  useEffect(() => {
    let mounted = true;
    import('./SeriesChart').then(
      (module) => mounted && setChart(() => module.default),
      () => mounted && setChart('failed'),
    );
    return () => {
      mounted = false;
    };
  }, []);
  return chart;
}

/** Each line's colour and pattern, as the chart draws it. */
function Legend() {
  return (
    <ul className="chart-legend" aria-label="Legend">
      {CHART_SERIES.map((s) => (
        <li key={s.field}>
          <svg width="28" height="10" aria-hidden="true">
            <line x1="1" y1="5" x2="27" y2="5" stroke={s.colour} strokeWidth="2.5" strokeDasharray={s.dash.join(' ') || undefined} />
          </svg>
          {s.label}
        </li>
      ))}
    </ul>
  );
}

/**
 * The period's time series: a caption, the legend, the chart (an image to
 * assistive technology, named by a one-sentence summary) and its numbers in a
 * table, the text alternative.
 */
export function MailChart({ buckets, interval, periodLabel }: { buckets: readonly Bucket[] | undefined; interval: Interval; periodLabel: string }) {
  const SeriesChart = useChart();
  return (
    <figure className="card chart" aria-labelledby="chart-title">
      <figcaption>
        <h2 id="chart-title">Mail per {interval} (UTC)</h2>
        <Legend />
      </figcaption>
      {buckets ? (
        <>
          <div className="chart-box" role="img" aria-label={seriesSummary(buckets, interval, periodLabel)}>
            {SeriesChart === 'failed' ? (
              <p className="muted">The chart could not be loaded (reload the page to try again); its numbers are below.</p>
            ) : SeriesChart ? (
              <SeriesChart buckets={buckets} interval={interval} />
            ) : (
              <div className="chart-placeholder" />
            )}
          </div>
          <SeriesTable buckets={buckets} interval={interval} />
        </>
      ) : (
        <div className="chart-placeholder" aria-busy="true" />
      )}
    </figure>
  );
}
