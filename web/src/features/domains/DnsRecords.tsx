import { CopyButton } from '../../components/CopyButton';

/** A domain's open and click tracking: its switches, and the host its tracked URLs use with its CNAME's status. */
export interface DomainTracking {
  open_tracking: boolean;
  click_tracking: boolean;
  tracking_domain: string | null;
  tracking_domain_status: 'pending' | 'verified' | 'failed' | null;
}

export interface DomainDetail extends DomainTracking {
  id: string;
  domain: string;
  status: 'pending' | 'verified' | 'failed';
  verified_at: string | null;
  last_checked_at: string | null;
  /** Why the last verification did not succeed; null once verified. */
  error: string | null;
  records: Array<{ type: string; name: string; value: string; priority?: number; purpose: string; check?: RecordCheck }>;
}

/** What the last Verify found at a record's name (only in its answer). */
interface RecordCheck {
  found: boolean;
  matches: boolean;
  values: string[];
  error?: string;
}

/** A check as a badge (reusing the domain status colours) and what was found when it is not ours. */
function CheckCell({ check }: { check: RecordCheck }) {
  const [badge, text] = check.error ? ['pending', 'Unknown'] : check.matches ? ['verified', 'Matches'] : check.found ? ['failed', 'Differs'] : ['pending', 'Not found'];
  return (
    <td data-label="Found">
      <div>
        <span className={`badge badge-${badge}`}>{text}</span>
        {check.error && <span className="muted small"> {check.error}</span>}
        {!check.matches && check.values.length > 0 && (
          <span className="muted small found-values">
            {' '}
            Published: {check.values.map((v) => <code key={v}>{v}</code>)}
          </span>
        )}
      </div>
    </td>
  );
}

const PURPOSE: Record<string, string> = {
  dkim: 'DKIM signature key (checked by Verify)',
  spf: 'SPF for the domain',
  return_path_mx: 'Bounces and complaints come back here',
  return_path_spf: 'SPF for the return path',
  dmarc: 'DMARC policy',
  tracking: 'Tracked links and the open pixel (its own status)',
};

/** The records a domain needs, each value with a copy button, and its verification. */
export function DnsRecords({ domain, canChange, onVerify, onClose }: { domain: DomainDetail; canChange: boolean; onVerify: () => void; onClose: () => void }) {
  const checked = domain.records.some((r) => r.check);
  return (
    <section className="card wide" aria-labelledby="records-title">
      <h2 id="records-title">DNS records of {domain.domain}</h2>
      <p>
        Status: <span className={`badge badge-${domain.status}`}>{domain.status}</span>
        {domain.verified_at && <span className="muted"> since {new Date(domain.verified_at).toLocaleString()}</span>}
      </p>
      {domain.error && (
        <p className="form-error" role="alert">
          {domain.error}
        </p>
      )}
      <table className="table records">
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
            <th scope="col">For</th>
            {checked && <th scope="col">Found</th>}
          </tr>
        </thead>
        <tbody>
          {domain.records.map((r) => (
            <tr key={`${r.purpose}-${r.name}`}>
              <td data-label="Type">{r.type}</td>
              <td data-label="Name">
                <code>{r.name}</code>
              </td>
              <td data-label="Value">
                <span className="value-row">
                  <code className="record-value">{r.priority !== undefined ? `${r.priority} ${r.value}` : r.value}</code>
                  <CopyButton value={r.value} label={`Copy`} />
                </span>
              </td>
              <td data-label="For">
                {PURPOSE[r.purpose] ?? r.purpose}
                {/* The CNAME's verdict is the tracking domain's, never the domain's status above. */}
                {r.purpose === 'tracking' && domain.tracking_domain_status && (
                  <>
                    {' '}
                    <span className={`badge badge-${domain.tracking_domain_status}`}>{domain.tracking_domain_status}</span>
                  </>
                )}
              </td>
              {checked && (r.check ? <CheckCell check={r.check} /> : <td data-label="Found" />)}
            </tr>
          ))}
        </tbody>
      </table>
      <div className="action-row">
        {canChange && (
          <button type="button" className="primary" onClick={onVerify}>
            Verify
          </button>
        )}
        <button type="button" className="link" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  );
}
