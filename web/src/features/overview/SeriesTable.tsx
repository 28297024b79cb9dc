import type { Interval } from './period';
import { bucketLabel, busyBuckets, CHART_SERIES } from './series';
import type { Bucket } from './stats';

/**
 * The chart's numbers as a table, the chart's text alternative: behind a
 * disclosure, as a week of hours is 168 rows. Only the buckets in which
 * something happened, as the caption says; the totals last.
 */
export function SeriesTable({ buckets, interval }: { buckets: readonly Bucket[]; interval: Interval }) {
  const rows = busyBuckets(buckets);
  const unit = interval === 'hour' ? 'Hour' : 'Day';
  return (
    <details className="series-numbers">
      <summary>The numbers per {unit.toLowerCase()}</summary>
      {rows.length === 0 ? (
        <p className="muted">No mail in this period.</p>
      ) : (
        <table className="table series-table">
          <caption className="muted small">{unit}s (UTC) in which anything happened, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">{unit}</th>
              {CHART_SERIES.map((s) => (
                <th key={s.field} scope="col">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((b) => (
              <tr key={b.bucket_start}>
                <th scope="row" data-label={unit}>
                  {bucketLabel(b.bucket_start, interval)}
                </th>
                {CHART_SERIES.map((s) => (
                  <td key={s.field} data-label={s.label}>
                    {b[s.field].toLocaleString()}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" data-label={unit}>
                Total
              </th>
              {CHART_SERIES.map((s) => (
                <td key={s.field} data-label={s.label}>
                  {rows.reduce((n, b) => n + b[s.field], 0).toLocaleString()}
                </td>
              ))}
            </tr>
          </tfoot>
        </table>
      )}
    </details>
  );
}
