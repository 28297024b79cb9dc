import type { Db } from '../db/database.js';
import type { InboundReportsTable } from '../db/schema.js';

/** Inbound reports already processed, by digest. */
export function createInboundReportsRepository(db: Db) {
  return {
    /** Records the report; false when it was recorded before (the same bytes twice). Call inside the transaction that acts on it. */
    async claim(row: Omit<InboundReportsTable, 'verdict'>): Promise<boolean> {
      const result = await db
        .insertInto('inbound_reports')
        .values({ ...row, verdict: null })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },
    /** What acting on the claimed report came to. */
    async recordVerdict(id: string, verdict: string): Promise<void> {
      await db.updateTable('inbound_reports').set({ verdict }).where('id', '=', id).execute();
    },
    async find(id: string): Promise<InboundReportsTable | undefined> {
      return db.selectFrom('inbound_reports').selectAll().where('id', '=', id).executeTakeFirst();
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    inboundReports: ReturnType<typeof createInboundReportsRepository>;
  }
}
