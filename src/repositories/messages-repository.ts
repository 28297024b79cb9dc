import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { DeliveryJobsTable, MessagesTable } from '../db/schema.js';
import { powerOfTwoChunks } from './chunks.js';

export type NewDeliveryJob = Omit<DeliveryJobsTable, 'attempts'>;

/** Accepted messages and the outbox rows the delivery worker claims. */
export function createMessagesRepository(db: Db) {
  return {
    async insertMany(rows: MessagesTable[]): Promise<void> {
      for (const chunk of powerOfTwoChunks(rows)) await db.insertInto('messages').values(chunk).execute();
    },
    async enqueueDeliveries(rows: NewDeliveryJob[]): Promise<void> {
      for (const chunk of powerOfTwoChunks(rows)) await db.insertInto('delivery_jobs').values(chunk).execute();
    },
    async findJobByMessage(messageId: string): Promise<Selectable<DeliveryJobsTable> | undefined> {
      return db.selectFrom('delivery_jobs').selectAll().where('message_id', '=', messageId).executeTakeFirst();
    },
  };
}
