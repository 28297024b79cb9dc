import type { Db } from '../../db/database.js';
import type { MessageAttachmentsTable } from '../../db/schema.js';

/** What is said about an attachment without its bytes (GET /v1/messages/{id}, the worker's claim). */
export type AttachmentMeta = Pick<MessageAttachmentsTable, 'message_id' | 'position' | 'filename' | 'content_type' | 'content_id' | 'size_bytes'>;

/** Attachments of messages: the only SQL that touches message_attachments. */
export function createAttachmentsRepository(db: Db) {
  return {
    /**
     * One statement per attachment: a row may hold up to 40 MB, and a
     * multi-row INSERT would only gather them into one larger message to
     * the store. Runs inside the acceptance transaction.
     */
    async insertMany(rows: MessageAttachmentsTable[]): Promise<void> {
      for (const row of rows) await db.insertInto('message_attachments').values(row).execute();
    },

    /** The attachments of these messages, without their bytes, in request order. */
    async listMeta(messageIds: string[]): Promise<AttachmentMeta[]> {
      if (messageIds.length === 0) return [];
      return db
        .selectFrom('message_attachments')
        .select(['message_id', 'position', 'filename', 'content_type', 'content_id', 'size_bytes'])
        .where('message_id', 'in', messageIds)
        .orderBy('message_id')
        .orderBy('position')
        .execute();
    },

    /** One attachment with its bytes (the dashboard's download), or undefined when the message has none at that position. */
    async findWithContent(messageId: string, position: number): Promise<MessageAttachmentsTable | undefined> {
      return db.selectFrom('message_attachments').selectAll().where('message_id', '=', messageId).where('position', '=', position).executeTakeFirst();
    },

    /** One message's attachments with their bytes, in request order: read by the worker just before it builds. */
    async listWithContent(messageId: string): Promise<MessageAttachmentsTable[]> {
      return db.selectFrom('message_attachments').selectAll().where('message_id', '=', messageId).orderBy('position').execute();
    },
  };
}

export type AttachmentsRepository = ReturnType<typeof createAttachmentsRepository>;

declare module '../../db/store.js' {
  interface Repositories {
    attachments: ReturnType<typeof createAttachmentsRepository>;
  }
}
