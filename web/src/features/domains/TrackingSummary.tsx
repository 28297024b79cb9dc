import { Wrappable } from '../../components/Wrappable';
import type { DomainTracking } from './DnsRecords';
import './tracking.css';

/** What each status of the tracking domain's CNAME asks of the reader: Verify decides it, apart from the domain's status. */
const NEXT: Record<NonNullable<DomainTracking['tracking_domain_status']>, string> = {
  pending: 'Publish its CNAME record (in the DNS records), then Verify.',
  verified: 'Its CNAME names this server.',
  failed: 'Its CNAME names another host: publish the value in the DNS records, then Verify.',
};

/** The tracking domain's status as a badge (the domain status colours) and what to do next. */
export function TrackingDomainStatus({ domain }: { domain: DomainTracking }) {
  const status = domain.tracking_domain_status;
  if (!status) return null;
  return (
    <p className="tracking-status">
      <span className={`badge badge-${status}`}>{status}</span> <span className="muted small">{NEXT[status]}</span>
    </p>
  );
}

/** A domain's tracking in its row: which switches are on, and its tracking domain with its status. */
export function TrackingCell({ domain }: { domain: DomainTracking }) {
  const on = [domain.open_tracking && 'Opens', domain.click_tracking && 'Clicks'].filter(Boolean).join(', ');
  return (
    <>
      {on ? <span>{on}</span> : <span className="muted">Off</span>}
      {domain.tracking_domain && (
        <span className="cell-detail">
          <Wrappable text={domain.tracking_domain} /> <span className={`badge badge-${domain.tracking_domain_status}`}>{domain.tracking_domain_status}</span>
        </span>
      )}
    </>
  );
}
