import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { LogEntriesTable, WebhookDeliveriesTable } from '../db/schema.js';

/** What a message's detail reads besides its own row, its events and its attempts (their repositories have those). */
export function createMessageDetailRepository(db: Db) {
  return {
    /** Every log entry of the message, of any type, oldest first. */
    async entriesOf(messageId: string): Promise<LogEntriesTable[]> {
      return db.selectFrom('log_entries').selectAll().where('message_id', '=', messageId).orderBy('id').execute();
    },

    /** The webhook deliveries the message's events caused, oldest first. */
    async webhookDeliveriesOf(messageId: string): Promise<Selectable<WebhookDeliveriesTable>[]> {
      return db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('event_id', 'in', (eb) => eb.selectFrom('message_events').select('id').where('message_id', '=', messageId))
        .orderBy('id')
        .execute();
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    messageDetail: ReturnType<typeof createMessageDetailRepository>;
  }
}
