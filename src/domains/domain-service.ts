import type { Config } from '../config.js';
import { ConflictError, NotFoundError, ValidationError } from '../lib/errors.js';
import { newId, nowIso } from '../lib/ids.js';
import type { DomainRow, DomainTrackingUpdate, DomainVerificationUpdate } from './domains-repository.js';
import type { Store } from '../db/store.js';
import { generateDkimKeyPair } from './dkim-keys.js';
import { dkimRecordName, dnsRecordsFor, RETURN_PATH_LABEL, type DnsRecord } from './dns-records.js';
import { checkRecords, type RecordCheck } from './record-checks.js';
import type { DnsVerifier } from './dns-verifier.js';
import { normalizeDomainName } from '../lib/domain-name.js';
import { mailHostnameProblem } from './mail-hostname.js';
import { createSecretBox, DKIM_PRIVATE_KEY } from '../lib/secret-box.js';
import { judgeTrackingRecord, normalizeTrackingDomain, type TrackingDomainStatus } from './tracking-domain.js';

export interface DomainSummary {
  id: string;
  domain: string;
  status: DomainRow['status'];
  created_at: string;
}

/** A domain's open and click tracking (docs/domains.md#tracking): its switches, and the host its tracked URLs use. */
export interface DomainTracking {
  open_tracking: boolean;
  click_tracking: boolean;
  /** Null: PUBLIC_URL's host. */
  tracking_domain: string | null;
  /** Its CNAME's check, apart from the domain's own status; null without a tracking domain. */
  tracking_domain_status: TrackingDomainStatus | null;
}

export interface DomainDetail extends DomainSummary, DomainTracking {
  verified_at: string | null;
  last_checked_at: string | null;
  /** Why the last verification did not succeed; null once verified. */
  error: string | null;
  /** After a verification, each with what was found at its name (`check`). */
  records: Array<DnsRecord & { check?: RecordCheck }>;
  /** The workspace upstreams a send from the domain goes through, in order; empty: the server's (docs/upstreams.md#routing). */
  upstream_ids: string[];
}

/** A domain of the dashboard's list: the summary, its route and its tracking, which the Domains page shows in every row. */
export interface DomainWithRoute extends DomainSummary, DomainTracking {
  upstream_ids: string[];
}

/** The body of PATCH /v1/domains/{id}: what it leaves out stays as it is. */
export interface DomainChange {
  upstream_ids?: string[] | undefined;
  open_tracking?: boolean | undefined;
  click_tracking?: boolean | undefined;
  /** A host under the domain; null: none, PUBLIC_URL's. */
  tracking_domain?: string | null | undefined;
}

/** Upstreams a domain's route may name at most. */
export const MAX_ROUTE_LENGTH = 5;

/** The host name every domain's MX and SPF records name, and what is wrong with it for public DNS (null when nothing). */
export interface RecordHost {
  mail_hostname: string;
  warning: string | null;
}

export function createDomainService(store: Store, dns: DnsVerifier, config: Pick<Config, 'mailHostname' | 'spfInclude' | 'secretKey'>) {
  // The private key is stored sealed; only the delivery worker opens it, to sign (delivery-attempt.ts).
  const dkimBox = createSecretBox(config.secretKey, DKIM_PRIVATE_KEY);
  const summary = (row: DomainRow): DomainSummary => ({ id: row.id, domain: row.domain, status: row.status, created_at: row.created_at });
  const routeOf = (row: DomainRow): string[] => (row.upstream_ids ? (JSON.parse(row.upstream_ids) as string[]) : []);
  const trackingOf = (row: DomainRow): DomainTracking => ({
    open_tracking: row.open_tracking === 1,
    click_tracking: row.click_tracking === 1,
    tracking_domain: row.tracking_domain,
    tracking_domain_status: row.tracking_domain_status,
  });
  const detail = (row: DomainRow): DomainDetail => ({
    ...summary(row),
    ...trackingOf(row),
    verified_at: row.verified_at,
    last_checked_at: row.last_checked_at,
    error: row.verification_error,
    records: dnsRecordsFor(row, config),
    upstream_ids: routeOf(row),
  });

  async function findOrThrow(workspaceId: string, id: string): Promise<DomainRow> {
    const row = await store.domains.findById(workspaceId, id);
    if (!row) throw new NotFoundError('Domain not found');
    return row;
  }

  /** A route as stored: the ids as JSON, or null for none (the server's). */
  async function checkedRoute(workspaceId: string, ids: string[]): Promise<string | null> {
    if (new Set(ids).size !== ids.length) throw new ValidationError('upstream_ids must name each upstream once');
    if (ids.length > MAX_ROUTE_LENGTH) throw new ValidationError(`upstream_ids may name at most ${MAX_ROUTE_LENGTH} upstreams`);
    const found = new Set((await store.upstreams.findMany(workspaceId, ids)).map((u) => u.id));
    const unknown = ids.find((upstreamId) => !found.has(upstreamId));
    if (unknown !== undefined) throw new ValidationError(`upstream_ids names ${JSON.stringify(unknown)}, which is not an upstream of this workspace`);
    return ids.length === 0 ? null : JSON.stringify(ids);
  }

  return {
    async add(workspaceId: string, input: string): Promise<DomainDetail> {
      const domain = normalizeDomainName(input);
      const duplicate = () => new ConflictError(`Domain ${domain} already exists in this workspace`);
      if (await store.domains.findByName(workspaceId, domain)) throw duplicate();
      const key = await generateDkimKeyPair();
      const row: DomainRow = {
        id: newId('dom'),
        workspace_id: workspaceId,
        domain,
        status: 'pending',
        dkim_selector: key.selector,
        dkim_private_key: dkimBox.seal(key.privateKeyPem),
        dkim_public_key: key.publicKeyBase64,
        return_path_domain: `${RETURN_PATH_LABEL}.${domain}`,
        verification_error: null,
        created_at: nowIso(),
        verified_at: null,
        last_checked_at: null,
        upstream_ids: null, open_tracking: 0, click_tracking: 0, tracking_domain: null, tracking_domain_status: null,
      };
      try {
        await store.domains.insert(row);
      } catch (error) {
        // Two concurrent adds of one name: the unique constraint decides, the loser gets the same 409.
        if (await store.domains.findByName(workspaceId, domain)) throw duplicate();
        throw error;
      }
      return detail(row);
    },

    /** MAILROOM_HOSTNAME as the records use it: the Domains page warns when public DNS cannot use it. */
    recordHost(): RecordHost {
      return { mail_hostname: config.mailHostname, warning: mailHostnameProblem(config.mailHostname) };
    },

    async list(workspaceId: string): Promise<DomainSummary[]> {
      return (await store.domains.listByWorkspace(workspaceId)).map(summary);
    },

    /** The dashboard's list: SPEC.md's summaries are /v1's, so the route is added here rather than there. */
    async listWithRoutes(workspaceId: string): Promise<DomainWithRoute[]> {
      return (await store.domains.listByWorkspace(workspaceId)).map((row) => ({ ...summary(row), ...trackingOf(row), upstream_ids: routeOf(row) }));
    },

    async get(workspaceId: string, id: string): Promise<DomainDetail> {
      return detail(await findOrThrow(workspaceId, id));
    },

    /**
     * Sets what the change names: the route (upstreams of the workspace, each once, tried in the order
     * given), the tracking switches, the tracking domain. All of it is checked before anything is written.
     */
    async update(workspaceId: string, id: string, change: DomainChange): Promise<DomainDetail> {
      const row = await findOrThrow(workspaceId, id);
      const route = change.upstream_ids === undefined ? undefined : await checkedRoute(workspaceId, change.upstream_ids);
      const tracking = trackingChange(row, change);
      await store.transaction(async (repos) => {
        if (route !== undefined) await repos.upstreams.setDomainRoute(workspaceId, id, route);
        await repos.domains.updateTracking(workspaceId, id, tracking);
      });
      return detail({ ...row, ...tracking, upstream_ids: route === undefined ? row.upstream_ids : route });
    },

    async remove(workspaceId: string, id: string): Promise<{ id: string; deleted: true }> {
      if (!(await store.domains.delete(workspaceId, id))) throw new NotFoundError('Domain not found');
      return { id, deleted: true };
    },

    /**
     * Looks every record up over DNS and answers what was found for each; the
     * domain is `verified` only when the DKIM record carries this domain's key
     * (the others are advice and do not change the status).
     */
    async verify(workspaceId: string, id: string): Promise<DomainDetail> {
      const row = await findOrThrow(workspaceId, id);
      const records = await checkRecords(dnsRecordsFor(row, config), row, dns);
      const dkim = records.find((record) => record.purpose === 'dkim')!;
      const update = judgeDkimRecord(row, dkimRecordName(row), dkim.check, nowIso());
      const tracked = records.find((record) => record.purpose === 'tracking');
      const trackingStatus = tracked && row.tracking_domain_status ? judgeTrackingRecord(row.tracking_domain_status, tracked.check) : row.tracking_domain_status;
      await store.transaction(async (repos) => {
        await repos.domains.updateVerification(row.id, update);
        if (tracked && trackingStatus) await repos.domains.updateTrackingStatus(row.id, tracked.name, trackingStatus);
      });
      return { ...detail({ ...row, ...update, tracking_domain_status: trackingStatus }), records };
    },
  };
}

/** The columns a change of tracking writes: a new tracking domain is `pending` until its CNAME is seen; the same one keeps its status. */
function trackingChange(row: DomainRow, change: DomainChange): DomainTrackingUpdate {
  const update: DomainTrackingUpdate = {};
  if (change.open_tracking !== undefined) update.open_tracking = change.open_tracking ? 1 : 0;
  if (change.click_tracking !== undefined) update.click_tracking = change.click_tracking ? 1 : 0;
  if (change.tracking_domain === null) Object.assign(update, { tracking_domain: null, tracking_domain_status: null });
  if (typeof change.tracking_domain === 'string') {
    const host = normalizeTrackingDomain(change.tracking_domain, row);
    if (host !== row.tracking_domain) Object.assign(update, { tracking_domain: host, tracking_domain_status: 'pending' });
  }
  return update;
}

function judgeDkimRecord(row: DomainRow, name: string, check: RecordCheck, now: string): DomainVerificationUpdate {
  const checked = { last_checked_at: now };
  if (check.error) {
    // A resolver failure says nothing about the record: keep the status, report why.
    return { ...checked, status: row.status, verified_at: row.verified_at, verification_error: `${check.error}; try again later` };
  }
  if (!check.found) {
    return { ...checked, status: 'pending', verified_at: null, verification_error: `No DKIM record found at ${name}; publish the TXT record listed in records` };
  }
  if (!check.matches) {
    return { ...checked, status: 'failed', verified_at: null, verification_error: `The DKIM record at ${name} does not match this domain's key; publish the value listed in records` };
  }
  return { ...checked, status: 'verified', verified_at: row.verified_at ?? now, verification_error: null };
}
