import { compileOnce } from '../db/compiled-query.js';
import type { Db } from '../db/database.js';
import type { MessageMimeTable } from '../db/schema.js';

// Runs once per message handed over, in the outcome recorder's transaction.
const upsert = compileOnce(
  (db: Db, row: MessageMimeTable) =>
    db
      .insertInto('message_mime')
      .values({ message_id: row.message_id, workspace_id: row.workspace_id, raw: row.raw, size_bytes: row.size_bytes, created_at: row.created_at })
      .onConflict((oc) => oc.column('message_id').doUpdateSet((eb) => ({ raw: eb.ref('excluded.raw'), size_bytes: eb.ref('excluded.size_bytes'), created_at: eb.ref('excluded.created_at') }))),
  (row) => [row.message_id, row.workspace_id, row.raw, row.size_bytes, row.created_at],
);

/** Messages as built and handed over (the MIME, DKIM-signed): the latest attempt's replaces an earlier one. */
export function createMessageMimeRepository(db: Db) {
  return {
    async keep(row: { message_id: string; workspace_id: string; raw: Buffer; created_at: string }): Promise<void> {
      await upsert(db, { ...row, raw: row.raw.toString('utf8'), size_bytes: row.raw.length });
    },
    async find(messageId: string): Promise<MessageMimeTable | undefined> {
      return db.selectFrom('message_mime').selectAll().where('message_id', '=', messageId).executeTakeFirst();
    },
    /** The size of the MIME as handed over, without reading it. */
    async sizeOf(messageId: string): Promise<number | undefined> {
      const row = await db.selectFrom('message_mime').select('size_bytes').where('message_id', '=', messageId).executeTakeFirst();
      return row ? Number(row.size_bytes) : undefined;
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    messageMime: ReturnType<typeof createMessageMimeRepository>;
  }
}
