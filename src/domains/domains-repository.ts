import type { Db } from '../db/database.js';
import type { DomainsTable } from '../db/schema.js';
import { compileOnce } from '../db/compiled-query.js';

export type DomainRow = DomainsTable;
export type DomainVerificationUpdate = Pick<DomainRow, 'status' | 'verification_error' | 'verified_at' | 'last_checked_at'>;
/** What PATCH /v1/domains/{id} changes of tracking: only the columns given. */
export type DomainTrackingUpdate = Partial<Pick<DomainRow, 'open_tracking' | 'click_tracking' | 'tracking_domain' | 'tracking_domain_status'>>;

// Every send from a domain of the workspace's looks its domain up (sender-domain.ts): built once.
const findByName = compileOnce((db: Db, workspaceId: string, domain: string) =>
  db.selectFrom('domains').selectAll().where('workspace_id', '=', workspaceId).where('domain', '=', domain),
);

export function createDomainsRepository(db: Db) {
  return {
    async insert(row: DomainRow): Promise<void> {
      await db.insertInto('domains').values(row).execute();
    },
    async listByWorkspace(workspaceId: string): Promise<DomainRow[]> {
      return db.selectFrom('domains').selectAll().where('workspace_id', '=', workspaceId).orderBy('id', 'desc').execute();
    },
    async findById(workspaceId: string, id: string): Promise<DomainRow | undefined> {
      return db.selectFrom('domains').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },
    async findByName(workspaceId: string, domain: string): Promise<DomainRow | undefined> {
      return (await findByName(db, workspaceId, domain))[0];
    },
    async updateVerification(id: string, update: DomainVerificationUpdate): Promise<void> {
      await db.updateTable('domains').set(update).where('id', '=', id).execute();
    },
    async updateTracking(workspaceId: string, id: string, update: DomainTrackingUpdate): Promise<void> {
      if (Object.keys(update).length === 0) return;
      await db.updateTable('domains').set(update).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
    },
    /** Only while the domain still names the host that was looked up: a PATCH in between has made it another's status. */
    async updateTrackingStatus(id: string, trackingDomain: string, status: NonNullable<DomainRow['tracking_domain_status']>): Promise<void> {
      await db.updateTable('domains').set({ tracking_domain_status: status }).where('id', '=', id).where('tracking_domain', '=', trackingDomain).execute();
    },
    async delete(workspaceId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('domains').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    domains: ReturnType<typeof createDomainsRepository>;
  }
}
