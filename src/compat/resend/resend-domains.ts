import type { DnsRecord, DomainChange, DomainDetail, DomainSummary } from '../../domains/index.js';
import type { Services } from '../../composition/index.js';
import { listPage, type ListPaging, type ResendList } from './list-page.js';

/** Mailroom's domains send; receiving is Resend's inbound product, which Mailroom does not have. */
const CAPABILITIES = { sending: 'enabled', receiving: 'disabled' } as const;

/** Resend's label of each record Mailroom asks for: its return path (MX and SPF) is what Resend files under SPF. */
const RECORD_LABELS: Record<DnsRecord['purpose'], string> = {
  dkim: 'DKIM',
  spf: 'SPF',
  return_path_mx: 'SPF',
  return_path_spf: 'SPF',
  dmarc: 'DMARC',
  tracking: 'Tracking',
};

/** Resend's PATCH /domains/{id} as Mailroom takes it: `tracking_subdomain` is a label under the domain ("links"); empty or null removes it. */
export interface ResendDomainUpdate {
  open_tracking?: boolean | undefined;
  click_tracking?: boolean | undefined;
  tracking_subdomain?: string | null | undefined;
}

export interface ResendDomain {
  id: string;
  name: string;
  status: string;
  created_at: string;
  capabilities: typeof CAPABILITIES;
}

export interface ResendDomainRecord {
  record: string;
  name: string;
  type: string;
  value: string;
  ttl: string;
  status: string;
  priority?: number;
}

const domainOf = (domain: DomainSummary): ResendDomain => ({
  id: domain.id,
  name: domain.domain,
  status: domain.status,
  created_at: domain.created_at,
  capabilities: CAPABILITIES,
});

/**
 * Names stay fully qualified. Mailroom's status is decided by DKIM alone and
 * kept per domain, not per record, so every record carries the domain's
 * status, or `not_started` before the first verification; but the tracking
 * CNAME, whose status is its own.
 */
function recordsOf(domain: DomainDetail): ResendDomainRecord[] {
  const status = domain.last_checked_at === null && domain.status === 'pending' ? 'not_started' : domain.status;
  return domain.records.map((record) => ({
    record: RECORD_LABELS[record.purpose],
    name: record.name,
    type: record.type,
    value: record.value,
    ttl: 'Auto',
    status: record.purpose === 'tracking' ? (domain.tracking_domain_status ?? 'pending') : status,
    ...(record.priority === undefined ? {} : { priority: record.priority }),
  }));
}

/** Resend's tracking fields of a domain: its subdomain is the tracking domain's label(s) under the domain. */
function trackingOf(domain: DomainDetail) {
  const subdomain = domain.tracking_domain?.slice(0, -(domain.domain.length + 1));
  return { open_tracking: domain.open_tracking, click_tracking: domain.click_tracking, ...(subdomain ? { tracking_subdomain: subdomain } : {}) };
}

/** Resend's update in /v1's terms: the same switches; the subdomain as the host under the domain. */
function changeOf(domain: DomainDetail, update: ResendDomainUpdate): DomainChange {
  const change: DomainChange = { open_tracking: update.open_tracking, click_tracking: update.click_tracking };
  if (update.tracking_subdomain !== undefined) change.tracking_domain = update.tracking_subdomain ? `${update.tracking_subdomain}.${domain.domain}` : null;
  return change;
}

/** Resend's domain routes on /v1's domain service. */
export function createResendDomains(services: Pick<Services, 'domains'>) {
  const domains = services.domains;
  return {
    async list(workspaceId: string, paging: ListPaging): Promise<ResendList<ResendDomain>> {
      return listPage((await domains.list(workspaceId)).map(domainOf), paging);
    },
    async create(workspaceId: string, name: string) {
      const domain = await domains.add(workspaceId, name);
      return { ...domainOf(domain), ...trackingOf(domain), records: recordsOf(domain) };
    },
    async get(workspaceId: string, id: string) {
      const domain = await domains.get(workspaceId, id);
      return { object: 'domain' as const, ...domainOf(domain), ...trackingOf(domain), records: recordsOf(domain) };
    },
    /** Resend answers an update with the id alone. */
    async update(workspaceId: string, id: string, update: ResendDomainUpdate) {
      const domain = await domains.update(workspaceId, id, changeOf(await domains.get(workspaceId, id), update));
      return { object: 'domain' as const, id: domain.id };
    },
    /** Verification runs at once here (Resend's runs later): the domain's status is current when this answers. */
    async verify(workspaceId: string, id: string) {
      const domain = await domains.verify(workspaceId, id);
      return { object: 'domain' as const, id: domain.id };
    },
    async remove(workspaceId: string, id: string) {
      const removed = await domains.remove(workspaceId, id);
      return { object: 'domain' as const, id: removed.id, deleted: true };
    },
  };
}
