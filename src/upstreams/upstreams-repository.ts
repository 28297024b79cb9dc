import type { Db } from '../db/database.js';
import type { UpstreamsTable } from '../db/schema.js';

export type UpstreamRow = UpstreamsTable;

/** Attempts of the last hour per upstream and outcome (counts as the driver returns them: bigint strings on PostgreSQL). */
export interface UpstreamAttemptCount {
  upstream: string;
  outcome: string;
  n: number | string;
}

/** A workspace's upstreams (`upstreams`), the domains that route through them, and their attempts of the last hour. */
export function createUpstreamsRepository(db: Db) {
  return {
    async insert(row: UpstreamRow): Promise<void> {
      await db.insertInto('upstreams').values(row).execute();
    },

    /** The workspace's upstreams, oldest first (ids sort by creation time). */
    async listByWorkspace(workspaceId: string): Promise<UpstreamRow[]> {
      return db.selectFrom('upstreams').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
    },

    async findById(workspaceId: string, id: string): Promise<UpstreamRow | undefined> {
      return db.selectFrom('upstreams').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },

    /** The named upstreams of the workspace that exist (a route's, read by the delivery worker). */
    async findMany(workspaceId: string, ids: readonly string[]): Promise<UpstreamRow[]> {
      if (ids.length === 0) return [];
      return db.selectFrom('upstreams').selectAll().where('workspace_id', '=', workspaceId).where('id', 'in', [...ids]).execute();
    },

    /** An upstream by id whatever its workspace: for the worker, which hears of upstreams by id. */
    async findAnyById(id: string): Promise<UpstreamRow | undefined> {
      return db.selectFrom('upstreams').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async findByName(workspaceId: string, name: string): Promise<UpstreamRow | undefined> {
      return db.selectFrom('upstreams').selectAll().where('workspace_id', '=', workspaceId).where('name', '=', name).executeTakeFirst();
    },

    async update(workspaceId: string, id: string, change: Pick<UpstreamRow, 'name' | 'settings' | 'secret' | 'updated_at'>): Promise<boolean> {
      const result = await db.updateTable('upstreams').set(change).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async delete(workspaceId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('upstreams').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /** The workspace's domains with a route of their own (few: a workspace has a handful of domains). */
    async routedDomains(workspaceId: string): Promise<{ id: string; domain: string; upstream_ids: string }[]> {
      const rows = await db.selectFrom('domains').select(['id', 'domain', 'upstream_ids']).where('workspace_id', '=', workspaceId).where('upstream_ids', 'is not', null).orderBy('domain').execute();
      return rows as { id: string; domain: string; upstream_ids: string }[];
    },

    async setDomainRoute(workspaceId: string, domainId: string, upstreamIds: string | null): Promise<boolean> {
      const result = await db.updateTable('domains').set({ upstream_ids: upstreamIds }).where('workspace_id', '=', workspaceId).where('id', '=', domainId).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Attempts since `since` per upstream and outcome, off delivery_attempts_upstream_idx. */
    async attemptCounts(keys: readonly string[], since: string): Promise<UpstreamAttemptCount[]> {
      if (keys.length === 0) return [];
      return db
        .selectFrom('delivery_attempts')
        .select(['upstream', 'outcome', (eb) => eb.fn.countAll().as('n')])
        .where('upstream', 'in', [...keys])
        .where('created_at', '>=', since)
        .groupBy(['upstream', 'outcome'])
        .$castTo<UpstreamAttemptCount>()
        .execute();
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    upstreams: ReturnType<typeof createUpstreamsRepository>;
  }
}
