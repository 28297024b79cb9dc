import { useState } from 'react';
import { FormError } from '../../components/FormError';
import type { WorkspacePageProps } from '../../lib/session';
import { navigate } from '../../lib/router';
import { useResource } from '../../lib/use-resource';

/** SPEC.md §2.4: what GET /v1/send/stats answers. */
interface Stats {
  total_sent: number;
  delivered: number;
  bounced: number;
  complained: number;
  suppressed: number;
  failed: number;
}

const PERIODS = [
  { label: '24 hours', hours: 24 },
  { label: '7 days', hours: 24 * 7 },
  { label: '30 days', hours: 24 * 30 },
] as const;

const FIGURES: Array<{ field: keyof Stats; label: string; status?: string }> = [
  { field: 'total_sent', label: 'Sent' },
  { field: 'delivered', label: 'Delivered', status: 'delivered' },
  { field: 'bounced', label: 'Bounced', status: 'bounced' },
  { field: 'complained', label: 'Complained', status: 'complained' },
  { field: 'suppressed', label: 'Suppressed', status: 'suppressed' },
  { field: 'failed', label: 'Failed', status: 'failed' },
];

const logsOf = (status?: string) => `/logs${status ? `?status=${status}` : ''}`;

/** The landing page: the workspace's six statistics over a chosen period, each leading to the matching logs. */
export function OverviewPage({ workspaceId }: WorkspacePageProps) {
  const [hours, setHours] = useState<number>(PERIODS[0].hours);
  // The start of the period rounded to the minute, so that re-rendering asks for the same range.
  const [since] = useState(() => Math.floor(Date.now() / 60_000) * 60_000);
  const from = new Date(since - hours * 3_600_000).toISOString();
  const { data: stats, error } = useResource<Stats>(`/workspaces/${workspaceId}/stats?since=${encodeURIComponent(from)}`);

  return (
    <>
      <h1>Overview</h1>
      <div className="filter" role="group" aria-label="Period">
        {PERIODS.map((p) => (
          <button key={p.hours} type="button" className={p.hours === hours ? 'primary' : 'secondary'} aria-pressed={p.hours === hours} onClick={() => setHours(p.hours)}>
            {p.label}
          </button>
        ))}
      </div>
      <FormError message={error} />
      <section className="figures" aria-label={`Mail of the last ${PERIODS.find((p) => p.hours === hours)!.label}`}>
        {FIGURES.map((f) => (
          <a
            key={f.field}
            className="card figure"
            href={logsOf(f.status)}
            onClick={(e) => {
              e.preventDefault();
              navigate(logsOf(f.status));
            }}
          >
            <span className="figure-label">{f.label}</span>
            <span className="figure-value">{stats ? stats[f.field].toLocaleString() : '…'}</span>
          </a>
        ))}
      </section>
      {stats?.total_sent === 0 && <p className="muted">No mail sent in this period. Send one with the API (see the README's first send) and it shows here.</p>}
    </>
  );
}
