import type { Db } from '../db/database.js';
import type { InboundReportsTable } from '../db/schema.js';

/** Inbound reports already processed, by digest. */
export function createInboundReportsRepository(db: Db) {
  return {
    /** Records the report; false when it was recorded before (the same bytes twice). Call inside the transaction that acts on it. */
    async claim(row: InboundReportsTable): Promise<boolean> {
      const result = await db.insertInto('inbound_reports').values(row).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },
  };
}
