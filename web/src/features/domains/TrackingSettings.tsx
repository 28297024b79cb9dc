import { useId, useState, type FormEvent } from 'react';
import { Field } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { Wrappable } from '../../components/Wrappable';
import { splitError } from '../../components/errors';
import type { DomainDetail, DomainTracking } from './DnsRecords';
import { TrackingDomainStatus } from './TrackingSummary';
import './tracking.css';

interface TrackingSettingsProps {
  domain: DomainDetail;
  canChange: boolean;
  /** PATCHes the change; answers the domain as saved, or rejects with the server's sentence. */
  onSave: (change: Pick<DomainTracking, 'open_tracking' | 'click_tracking' | 'tracking_domain'>) => Promise<DomainTracking>;
}

const SWITCHES = [
  { key: 'open_tracking', label: 'Track opens', meaning: 'An invisible image in the HTML tells when a message is opened.' },
  { key: 'click_tracking', label: 'Track clicks', meaning: "The HTML's links go through Mailroom, which counts each click and sends the reader on." },
] as const;

/**
 * A domain's open and click switches and its tracking domain, below its DNS records: a form for admins and
 * developers, the same switches disabled for a viewer (the server refuses their change). The tracking
 * domain's CNAME is a row of the records above; its status is shown here, since Verify decides it apart
 * from the domain's.
 */
export function TrackingSettings({ domain, canChange, onSave }: TrackingSettingsProps) {
  const id = useId();
  const [switches, setSwitches] = useState({ open_tracking: domain.open_tracking, click_tracking: domain.click_tracking });
  const [host, setHost] = useState(domain.tracking_domain ?? '');
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState(false);
  const errors = splitError(error, ['tracking_domain']);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setSaved(false);
    try {
      const saved = await onSave({ ...switches, tracking_domain: host.trim() === '' ? null : host.trim() });
      // The host as the server keeps it: lower-cased, an IDN in its ASCII form.
      setHost(saved.tracking_domain ?? '');
      setSaved(true);
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <form className="card wide tracking" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        Tracking of <Wrappable text={domain.domain} />
      </h2>
      <FormError message={errors.form} />
      <fieldset className="checks" disabled={!canChange}>
        <legend className="visually-hidden">Switches</legend>
        {SWITCHES.map((s) => (
          <label key={s.key} className="check">
            <input type="checkbox" role="switch" checked={switches[s.key]} onChange={(e) => setSwitches((now) => ({ ...now, [s.key]: e.target.checked }))} />
            <span>
              <strong>{s.label}</strong> <span className="muted">{s.meaning}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <div className="tracking-host">
        {canChange ? (
          <Field
            label="Tracking domain"
            value={host}
            onChange={(e) => setHost(e.target.value)}
            // The example in the hint rather than a placeholder, which a long domain name would cut off.
            hint={`A host under this domain, such as links.${domain.domain}, whose CNAME names this server. Blank: the dashboard's address (PUBLIC_URL).`}
            error={errors.field.tracking_domain}
          />
        ) : (
          <p>
            Tracking domain:{' '}
            {domain.tracking_domain ? (
              <code>
                <Wrappable text={domain.tracking_domain} />
              </code>
            ) : (
              <span className="muted">none: the dashboard's address (PUBLIC_URL)</span>
            )}
          </p>
        )}
        {domain.tracking_domain && <TrackingDomainStatus domain={domain} />}
      </div>
      {canChange && (
        <div className="action-row">
          <button type="submit" className="primary">
            Save tracking
          </button>
          {saved && (
            <span className="muted" role="status">
              Saved.
            </span>
          )}
        </div>
      )}
    </form>
  );
}
