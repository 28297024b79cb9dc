import type { DomainRow } from './domains-repository.js';

export interface DnsRecord {
  type: 'TXT' | 'MX' | 'CNAME';
  name: string;
  value: string;
  /** MX only. */
  priority?: number;
  /** `tracking`: the tracking domain's CNAME, listed only while the domain names one (docs/domains.md#tracking). */
  purpose: 'dkim' | 'spf' | 'return_path_mx' | 'return_path_spf' | 'dmarc' | 'tracking';
}

/** The label under the sending domain that receives bounces (the envelope sender's domain). */
export const RETURN_PATH_LABEL = 'mr-bounces';
/** Priority of the return path's MX record. */
const RETURN_PATH_MX_PRIORITY = 10;

export interface RecordSettings {
  mailHostname: string;
  spfInclude: string | undefined;
}

export function dkimRecordName(domain: Pick<DomainRow, 'dkim_selector' | 'domain'>): string {
  return `${domain.dkim_selector}._domainkey.${domain.domain}`;
}

export function dkimRecordValue(publicKeyBase64: string): string {
  return `v=DKIM1; k=rsa; p=${publicKeyBase64}`;
}

/**
 * What the domain's owner publishes: DKIM decides verification, the rest is advice; the tracking
 * domain's CNAME decides only its own status (tracking_domain_status), never the domain's.
 */
export function dnsRecordsFor(domain: DomainRow, settings: RecordSettings): DnsRecord[] {
  const spf = `v=spf1 a:${settings.mailHostname}${settings.spfInclude ? ` include:${settings.spfInclude}` : ''} ~all`;
  // Last, so that the records every domain has keep their places whether or not it tracks.
  const tracking: DnsRecord[] = domain.tracking_domain ? [{ type: 'CNAME', name: domain.tracking_domain, value: settings.mailHostname, purpose: 'tracking' }] : [];
  return [
    { type: 'TXT', name: dkimRecordName(domain), value: dkimRecordValue(domain.dkim_public_key), purpose: 'dkim' },
    { type: 'TXT', name: domain.domain, value: spf, purpose: 'spf' },
    {
      type: 'MX',
      name: domain.return_path_domain,
      value: settings.mailHostname,
      priority: RETURN_PATH_MX_PRIORITY,
      purpose: 'return_path_mx',
    },
    { type: 'TXT', name: domain.return_path_domain, value: spf, purpose: 'return_path_spf' },
    { type: 'TXT', name: `_dmarc.${domain.domain}`, value: `v=DMARC1; p=none; rua=mailto:postmaster@${domain.domain}`, purpose: 'dmarc' },
    ...tracking,
  ];
}
