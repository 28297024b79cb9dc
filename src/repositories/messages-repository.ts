import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { DeliveryJobsTable, MessagesTable } from '../db/schema.js';

/** Accepted messages and the outbox rows the delivery worker claims. */
export function createMessagesRepository(db: Db) {
  return {
    async insert(row: MessagesTable): Promise<void> {
      await db.insertInto('messages').values(row).execute();
    },
    async enqueueDelivery(row: Omit<DeliveryJobsTable, 'attempts'>): Promise<void> {
      await db.insertInto('delivery_jobs').values(row).execute();
    },
    async findJobByMessage(messageId: string): Promise<Selectable<DeliveryJobsTable> | undefined> {
      return db.selectFrom('delivery_jobs').selectAll().where('message_id', '=', messageId).executeTakeFirst();
    },
  };
}
