import { useState } from 'react';
import { FormError } from '../../components/FormError';
import type { WorkspacePageProps } from '../../lib/session';
import { DeliveryRates } from './DeliveryRates';
import type { Engagement } from './engagement';
import { EngagementRates } from './EngagementRates';
import { MailChart } from './MailChart';
import { PERIODS, periodStart } from './period';
import { StatFigures } from './StatFigures';
import type { Bucket, Stats } from './stats';
import { useAnswer } from './use-answer';

/**
 * The landing page: over the chosen period, SPEC.md's six statistics, the
 * mail per hour or day, the bounce and complaint rates against Amazon SES's
 * review thresholds, each figure and rate a link to the logs it counts; and
 * the open and click rates of tracked mail.
 */
export function OverviewPage({ workspaceId }: WorkspacePageProps) {
  // The period and the moment it was chosen: re-rendering asks for the same range; choosing again, for a fresh one.
  const [choice, setChoice] = useState(() => ({ period: PERIODS[0]!, at: Date.now() }));
  const { period } = choice;
  const since = periodStart(period, choice.at);
  const query = `since=${encodeURIComponent(since)}`;
  const stats = useAnswer<Stats>(`/workspaces/${workspaceId}/stats?${query}`);
  const series = useAnswer<Bucket[]>(`/workspaces/${workspaceId}/stats/timeseries?interval=${period.interval}&${query}`);
  const engagement = useAnswer<Engagement>(`/workspaces/${workspaceId}/engagement?${query}`);

  return (
    <div className="overview">
      <h1>Overview</h1>
      <div className="filter" role="group" aria-label="Period">
        {PERIODS.map((p) => (
          <button key={p.label} type="button" className={p === period ? 'primary' : 'secondary'} aria-pressed={p === period} onClick={() => setChoice({ period: p, at: Date.now() })}>
            {p.label}
          </button>
        ))}
      </div>
      <FormError message={stats.error ?? series.error ?? engagement.error} />
      <StatFigures stats={stats.data} since={since} periodLabel={period.label} />
      {stats.data?.total_sent === 0 && <p className="muted">No mail sent in this period. Send one with the API (see the README's first send) and it shows here.</p>}
      {stats.data && <DeliveryRates stats={stats.data} since={since} />}
      {engagement.data && <EngagementRates engagement={engagement.data} />}
      <MailChart buckets={series.data} interval={period.interval} periodLabel={period.label} />
    </div>
  );
}
