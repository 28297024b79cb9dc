import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { DeliveryJobsTable, MessagesTable } from '../db/schema.js';
import { bulkInsert, type InsertPart } from '../db/bulk-insert.js';

export type NewDeliveryJob = Omit<DeliveryJobsTable, 'attempts' | 'pending_recipients'>;

// Both run on every accepted send.
const insertMessages = bulkInsert('messages', [
  'id', 'workspace_id', 'from_name', 'from_address', 'reply_to', 'subject', 'html', 'text', 'recipients', 'cc', 'bcc', 'headers', 'tags', 'scheduled_at', 'created_at',
  'template_id', 'template_version', 'track_opens', 'track_clicks',
]);
const insertJobs = bulkInsert('delivery_jobs', [
  'message_id', 'workspace_id', 'state', 'available_at', 'lease_owner', 'lease_expires_at', 'last_error', 'created_at', 'updated_at',
]);

/** Accepted messages and the outbox rows the delivery worker claims. */
export function createMessagesRepository(db: Db) {
  return {
    async insertMany(rows: MessagesTable[]): Promise<void> {
      await insertMessages(db, rows);
    },
    async enqueueDeliveries(rows: NewDeliveryJob[]): Promise<void> {
      await insertJobs(db, rows);
    },
    /** Messages and their outbox rows, in that order, to insert with another table's rows (insertTogether). */
    acceptedParts(messages: MessagesTable[], jobs: NewDeliveryJob[]): InsertPart[] {
      return [insertMessages.part(messages), insertJobs.part(jobs)];
    },
    async find(id: string): Promise<MessagesTable | undefined> {
      return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async findMany(ids: string[]): Promise<MessagesTable[]> {
      if (ids.length === 0) return [];
      return db.selectFrom('messages').selectAll().where('id', 'in', ids).execute();
    },
    async findJobByMessage(messageId: string): Promise<Selectable<DeliveryJobsTable> | undefined> {
      return db.selectFrom('delivery_jobs').selectAll().where('message_id', '=', messageId).executeTakeFirst();
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    messages: ReturnType<typeof createMessagesRepository>;
  }
}
