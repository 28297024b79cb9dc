import { compileOnce } from '../db/compiled-query.js';
import type { Db } from '../db/database.js';
import type { SuppressionsTable } from '../db/schema.js';

export type SuppressionRow = SuppressionsTable;
export interface SuppressionFilter {
  reason?: string | undefined;
}

// Runs for every batch of claimed jobs (a batch of sends looks up its own with acceptance-checks-repository.ts).
const findSuppressed = compileOnce((db: Db, workspaceId: string, emails: string[]) =>
  db.selectFrom('suppressions').select(['email', 'reason']).where('workspace_id', '=', workspaceId).where('email', 'in', emails),
);

/** Longest IN list of one look-up: far below either store's bound on parameters. */
const MAX_ADDRESSES_PER_QUERY = 512;

/**
 * The addresses in IN lists whose lengths are powers of two, the last address
 * repeated to fill one up (a repeat matches nothing more): a handful of SQL
 * texts serve every batch size (see compileOnce) instead of one per count.
 */
function paddedInLists(emails: string[]): string[][] {
  const lists: string[][] = [];
  for (let start = 0; start < emails.length; start += MAX_ADDRESSES_PER_QUERY) {
    const list = emails.slice(start, start + MAX_ADDRESSES_PER_QUERY);
    let size = 1;
    while (size < list.length) size *= 2;
    lists.push(list.concat(Array<string>(size - list.length).fill(list[list.length - 1]!)));
  }
  return lists;
}

export function createSuppressionsRepository(db: Db) {
  return {
    /** Of the given lower-cased addresses, those on the workspace's suppression list. */
    async findSuppressed(workspaceId: string, emails: string[]): Promise<Map<string, string>> {
      const found = new Map<string, string>();
      for (const list of paddedInLists(emails)) for (const r of await findSuppressed(db, workspaceId, list)) found.set(r.email, r.reason);
      return found;
    },
    async add(row: SuppressionsTable): Promise<void> {
      await db
        .insertInto('suppressions')
        .values(row)
        .onConflict((oc) => oc.columns(['workspace_id', 'email']).doNothing())
        .execute();
    },

    /** Inserts the entry unless the address is already listed; true when this call inserted it. */
    async insertIfAbsent(row: SuppressionRow): Promise<boolean> {
      const inserted = await db
        .insertInto('suppressions')
        .values(row)
        .onConflict((oc) => oc.columns(['workspace_id', 'email']).doNothing())
        .returning('email')
        .executeTakeFirst();
      return inserted !== undefined;
    },

    /** One entry by its lower-cased address. */
    async find(workspaceId: string, email: string): Promise<SuppressionRow | undefined> {
      return db.selectFrom('suppressions').selectAll().where('workspace_id', '=', workspaceId).where('email', '=', email).executeTakeFirst();
    },

    /** Newest first, (created_at, email) descending: suppressions_page_idx, or suppressions_reason_page_idx with a reason. */
    async list(workspaceId: string, filter: SuppressionFilter, limit: number, offset: number): Promise<SuppressionRow[]> {
      let query = db.selectFrom('suppressions').selectAll().where('workspace_id', '=', workspaceId);
      if (filter.reason) query = query.where('reason', '=', filter.reason);
      return query.orderBy('created_at', 'desc').orderBy('email', 'desc').limit(limit).offset(offset).execute();
    },

    /** How many entries match: a COUNT over an index range (the list is not expected to be huge). */
    async count(workspaceId: string, filter: SuppressionFilter): Promise<number> {
      let query = db
        .selectFrom('suppressions')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', workspaceId);
      if (filter.reason) query = query.where('reason', '=', filter.reason);
      const row = await query.executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async delete(workspaceId: string, email: string): Promise<boolean> {
      const result = await db.deleteFrom('suppressions').where('workspace_id', '=', workspaceId).where('email', '=', email).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    suppressions: ReturnType<typeof createSuppressionsRepository>;
  }
}
