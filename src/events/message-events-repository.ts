import type { Db } from '../db/database.js';
import type { MessageEventsTable } from '../db/schema.js';
import { bulkInsert } from '../db/bulk-insert.js';

const insertEvents = bulkInsert('message_events', ['id', 'workspace_id', 'message_id', 'type', 'recipient', 'payload', 'created_at']);

/** The record of the internal event path: append-only. */
export function createMessageEventsRepository(db: Db) {
  return {
    async insertMany(rows: MessageEventsTable[]): Promise<void> {
      await insertEvents(db, rows);
    },
    /** A message's events, oldest first. */
    async listForMessage(messageId: string): Promise<MessageEventsTable[]> {
      return db.selectFrom('message_events').selectAll().where('message_id', '=', messageId).orderBy('id').execute();
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    messageEvents: ReturnType<typeof createMessageEventsRepository>;
  }
}
