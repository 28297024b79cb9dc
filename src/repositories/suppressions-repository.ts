import { compileOnce } from '../db/compiled-query.js';
import type { Db } from '../db/database.js';
import type { SuppressionsTable } from '../db/schema.js';

// Runs on every send; one SQL text per number of recipients.
const findSuppressed = compileOnce((db: Db, workspaceId: string, emails: string[]) =>
  db.selectFrom('suppressions').select(['email', 'reason']).where('workspace_id', '=', workspaceId).where('email', 'in', emails),
);

export function createSuppressionsRepository(db: Db) {
  return {
    /** Of the given lower-cased addresses, those on the workspace's suppression list. */
    async findSuppressed(workspaceId: string, emails: string[]): Promise<Map<string, string>> {
      if (emails.length === 0) return new Map();
      const rows = await findSuppressed(db, workspaceId, emails);
      return new Map(rows.map((r) => [r.email, r.reason]));
    },
    async add(row: SuppressionsTable): Promise<void> {
      await db
        .insertInto('suppressions')
        .values(row)
        .onConflict((oc) => oc.columns(['workspace_id', 'email']).doNothing())
        .execute();
    },
  };
}
