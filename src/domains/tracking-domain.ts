import { normalizeDomainName } from '../lib/domain-name.js';
import { ValidationError } from '../lib/errors.js';
import type { DomainRow } from './domains-repository.js';
import type { RecordCheck } from './record-checks.js';

export type TrackingDomainStatus = NonNullable<DomainRow['tracking_domain_status']>;

/**
 * The host a domain's tracked links and open pixel use instead of PUBLIC_URL's (docs/domains.md#tracking):
 * a name under the domain, lower-cased and in its ASCII form. Not the domain itself, nor its return path:
 * each holds the TXT (and MX) records Mailroom lists, and a name with a CNAME can hold no other record
 * (RFC 1034 §3.6.2), so publishing the tracking CNAME there would break the domain's SPF or its bounces.
 */
export function normalizeTrackingDomain(input: string, domain: Pick<DomainRow, 'domain' | 'return_path_domain'>): string {
  const host = normalizeDomainName(input, { field: 'tracking_domain', example: `links.${domain.domain}` });
  if (host === domain.domain) {
    throw new ValidationError(`tracking_domain must be a subdomain of ${domain.domain} such as links.${domain.domain}, not the domain itself, whose SPF record cannot sit beside a CNAME`);
  }
  if (!host.endsWith(`.${domain.domain}`)) throw new ValidationError(`tracking_domain must be a subdomain of ${domain.domain} such as links.${domain.domain} (got ${JSON.stringify(input)})`);
  if (host === domain.return_path_domain) throw new ValidationError(`tracking_domain cannot be ${host}, the domain's return path, which receives its bounces`);
  return host;
}

/**
 * The tracking domain's status after a look-up of its CNAME, as the domain's own follows its DKIM record:
 * `verified` when it names MAILROOM_HOSTNAME, `failed` when it names another host, `pending` while there is
 * none; a resolver that did not answer says nothing, so the status stays.
 */
export function judgeTrackingRecord(current: TrackingDomainStatus, check: RecordCheck): TrackingDomainStatus {
  if (check.error) return current;
  if (check.matches) return 'verified';
  return check.found ? 'failed' : 'pending';
}
