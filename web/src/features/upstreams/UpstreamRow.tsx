import { ConfirmButton } from '../../components/ConfirmButton';
import { Wrappable } from '../../components/Wrappable';
import { TestOutcome, type Outcome } from './TestOutcome';
import { HEALTH_LABELS, STARTTLS_LABELS, TYPE_LABELS, type Upstream } from './types';

/** The list's columns (and its actions' after them): the row under an upstream that holds its test's outcome spans them. */
export const COLUMNS = ['Upstream', 'Health', 'Last hour', 'Domains'];

interface UpstreamRowProps {
  upstream: Upstream;
  canChange: boolean;
  /** Its latest connection test on this page, shown in a row under it. */
  outcome: Outcome | undefined;
  onTest: () => void;
  onEdit: () => void;
  onDelete: () => Promise<unknown>;
}

const when = (iso: string) => new Date(iso).toLocaleString();

/** Its name and kind, then where it sends: a relay's URL (password masked) and STARTTLS policy, or an SES account's region and masked key. */
function Target({ u }: { u: Upstream }) {
  const smtp = u.type === 'smtp';
  const extras = smtp
    ? [u.starttls && STARTTLS_LABELS[u.starttls]]
    : [u.configuration_set && `Configuration set ${u.configuration_set}`, u.endpoint && `Endpoint ${u.endpoint}`];
  return (
    <span>
      <strong className="upstream-name">{u.name}</strong>
      <span className="cell-detail">{TYPE_LABELS[u.type]}</span>
      {smtp ? (
        <code className="upstream-target">
          <Wrappable text={u.url ?? ''} />
        </code>
      ) : (
        <span className="upstream-target">
          Region <strong>{u.region}</strong>, key <code>{u.access_key_id}</code>
        </span>
      )}
      {extras.filter(Boolean).map((extra) => (
        <span key={String(extra)} className="cell-detail">
          {extra}
        </span>
      ))}
    </span>
  );
}

/** The breaker's state, and the last error: marked while it counts (degraded, down), a muted note once healthy again. */
function Health({ u }: { u: Upstream }) {
  return (
    <span>
      <span className={`badge badge-${u.health}`}>{HEALTH_LABELS[u.health]}</span>
      {u.last_error && (
        <span className={`health-error${u.health === 'healthy' ? ' muted' : ''}`}>
          <span className="muted">
            {u.health === 'healthy' ? 'Last error' : 'Error'}
            {u.last_error_at && (
              <>
                {' '}
                <time dateTime={u.last_error_at}>{when(u.last_error_at)}</time>
              </>
            )}
            :
          </span>{' '}
          {u.last_error}
        </span>
      )}
    </span>
  );
}

/** Attempts through it in the last hour, by outcome (a failed-over try counts as temporary). */
function LastHour({ counts }: { counts: Upstream['last_hour'] }) {
  if (counts.attempts === 0) return <span className="muted">No attempts</span>;
  const parts = (['accepted', 'temporary', 'permanent', 'failed'] as const).filter((k) => counts[k] > 0).map((k) => `${counts[k].toLocaleString()} ${k}`);
  return (
    <span>
      {counts.attempts.toLocaleString()} {counts.attempts === 1 ? 'attempt' : 'attempts'}
      <span className="cell-detail">{parts.join(', ')}</span>
    </span>
  );
}

/** One upstream, and, once tested here, the test's outcome in a row of its own under it. */
export function UpstreamRow({ upstream: u, canChange, outcome, onTest, onEdit, onDelete }: UpstreamRowProps) {
  const routed = u.domains.map((d) => d.domain);
  const reasonId = `routed-${u.id}`;
  return (
    <>
      <tr>
        <td data-label="Upstream">
          <Target u={u} />
        </td>
        <td data-label="Health">
          <Health u={u} />
        </td>
        <td data-label="Last hour">
          <LastHour counts={u.last_hour} />
        </td>
        <td data-label="Domains">
          {routed.length === 0 ? (
            <span className="muted">None</span>
          ) : (
            <ul className="plain-list">
              {routed.map((d) => (
                <li key={d}>
                  <Wrappable text={d} />
                </li>
              ))}
            </ul>
          )}
        </td>
        {canChange && (
          <td className="actions">
            <span className="action-row upstream-actions">
              <button type="button" className="secondary" aria-label={`Test connection to ${u.name}`} disabled={outcome?.state === 'testing'} onClick={onTest}>
                Test connection
              </button>
              <button type="button" className="secondary" aria-label={`Edit ${u.name}`} onClick={onEdit}>
                Edit
              </button>
              {routed.length > 0 ? (
                <>
                  <button type="button" className="secondary" disabled aria-label={`Delete ${u.name}`} aria-describedby={reasonId}>
                    Delete
                  </button>
                  <span id={reasonId} className="muted small routed-reason">
                    {routed.length === 1 ? 'On a domain’s route' : `On ${routed.length} domains’ routes`}: take it off on the Domains page first.
                  </span>
                </>
              ) : (
                <ConfirmButton label="Delete" ariaLabel={`Delete ${u.name}`} warning="Its settings and credentials are deleted at once." confirmLabel={`Delete ${u.name}`} onConfirm={onDelete} />
              )}
            </span>
          </td>
        )}
      </tr>
      {outcome && (
        <tr className="outcome-row">
          <td colSpan={COLUMNS.length + 1} role="status">
            <TestOutcome name={u.name} outcome={outcome} />
          </td>
        </tr>
      )}
    </>
  );
}
