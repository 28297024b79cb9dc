import type { DomainRow } from './domains-repository.js';
import type { DnsRecord } from './dns-records.js';
import type { DnsLookup, DnsVerifier } from './dns-verifier.js';

/** What verification found for one record Mailroom asks the domain's owner to publish. */
export interface RecordCheck {
  /** A record of this kind is published at the name. */
  found: boolean;
  /** What is published does what Mailroom's record does (see matchesRecord). */
  matches: boolean;
  /** The values of this kind found there: DKIM keys, SPF or DMARC policies, MX hosts, a CNAME's target. */
  values: string[];
  /** Set when the look-up failed: the record's state is unknown, not missing. */
  error?: string;
}

export type CheckedDnsRecord = DnsRecord & { check: RecordCheck };

/** Of all the TXT values at a name, the ones of the record's kind (a name also holds other TXT records). */
const OF_KIND: Record<DnsRecord['purpose'], (value: string) => boolean> = {
  dkim: (value) => parseTags(value).has('p'),
  spf: isSpf,
  return_path_spf: isSpf,
  return_path_mx: () => true,
  dmarc: (value) => /^v=DMARC1\s*(;|$)/i.test(value.trim()),
  tracking: () => true,
};

function isSpf(value: string): boolean {
  return /^v=spf1(\s|$)/i.test(value.trim());
}

/** Looks up every record of the domain at once and judges each. */
export async function checkRecords(records: DnsRecord[], row: Pick<DomainRow, 'dkim_public_key'>, dns: Pick<DnsVerifier, 'lookupTxt' | 'lookupMx' | 'lookupCname'>): Promise<CheckedDnsRecord[]> {
  const lookups = { TXT: dns.lookupTxt, MX: dns.lookupMx, CNAME: dns.lookupCname };
  return Promise.all(records.map(async (record) => ({ ...record, check: judge(record, row, await lookups[record.type](record.name)) })));
}

function judge(record: DnsRecord, row: Pick<DomainRow, 'dkim_public_key'>, lookup: DnsLookup): RecordCheck {
  if (lookup.kind === 'error') return { found: false, matches: false, values: [], error: `DNS lookup of ${record.name} failed (${lookup.code})` };
  const values = lookup.kind === 'found' ? lookup.records.filter(OF_KIND[record.purpose]) : [];
  return { found: values.length > 0, matches: values.length > 0 && matchesRecord(record, values, row), values };
}

/**
 * Whether what is published does the job of Mailroom's record:
 * - DKIM: a key that is this domain's own (RSA, DKIM1);
 * - SPF: one policy only (two are an error, RFC 7208 §4.5) that has every mechanism of Mailroom's, whatever else it allows;
 * - MX: Mailroom's host among the exchanges;
 * - tracking CNAME: Mailroom's host as its target (a name has one CNAME at most);
 * - DMARC: one policy only (RFC 7489 §6.6.3), whatever it says: Mailroom's is only a suggestion.
 */
function matchesRecord(record: DnsRecord, values: string[], row: Pick<DomainRow, 'dkim_public_key'>): boolean {
  switch (record.purpose) {
    case 'dkim':
      return values.some((value) => dkimKeyMatches(parseTags(value), row.dkim_public_key));
    case 'spf':
    case 'return_path_spf': {
      if (values.length !== 1) return false;
      const published = new Set(spfTerms(values[0]!));
      return spfTerms(record.value).every((term) => published.has(term));
    }
    case 'return_path_mx':
    case 'tracking':
      return values.some((host) => host.replace(/\.$/, '').toLowerCase() === record.value.toLowerCase());
    case 'dmarc':
      return values.length === 1;
  }
}

/** An SPF policy's mechanisms, lower-cased, without its version and its catch-all (a stricter `-all` does as well). */
function spfTerms(policy: string): string[] {
  return policy
    .trim()
    .split(/\s+/)
    .slice(1)
    .map((term) => term.toLowerCase())
    .filter((term) => !/^[~?+-]?all$/.test(term));
}

function dkimKeyMatches(tags: Map<string, string>, publicKey: string): boolean {
  return (tags.get('p') ?? '').replace(/\s+/g, '') === publicKey && (tags.get('v') ?? 'DKIM1') === 'DKIM1' && (tags.get('k') ?? 'rsa').toLowerCase() === 'rsa';
}

/** `v=DKIM1; k=rsa; p=…` into a tag map (RFC 6376 §3.2). */
function parseTags(record: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of record.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) tags.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return tags;
}
