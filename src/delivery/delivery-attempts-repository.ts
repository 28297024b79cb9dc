import type { Db } from '../db/database.js';
import type { DeliveryAttemptsTable } from '../db/schema.js';
import { bulkInsert } from '../db/bulk-insert.js';

const insertAttempts = bulkInsert('delivery_attempts', [
  'id', 'workspace_id', 'message_id', 'recipient', 'attempt', 'provider', 'outcome', 'detail', 'duration_ms', 'provider_message_id', 'upstream', 'created_at',
]);

/** Every hand-over to a provider, one row per recipient per attempt: append-only, beside the current status in the log. */
export function createDeliveryAttemptsRepository(db: Db) {
  return {
    async insertMany(rows: DeliveryAttemptsTable[]): Promise<void> {
      await insertAttempts(db, rows);
    },
    /** A message's attempts, oldest first. */
    async listForMessage(messageId: string): Promise<DeliveryAttemptsTable[]> {
      return db.selectFrom('delivery_attempts').selectAll().where('message_id', '=', messageId).orderBy('id').execute();
    },
    /** The latest hand-over the upstream knows by this id (SES's MessageId): one per recipient it was sent to. */
    async findByProviderMessageId(providerMessageId: string): Promise<DeliveryAttemptsTable[]> {
      return db.selectFrom('delivery_attempts').selectAll().where('provider_message_id', '=', providerMessageId).orderBy('id').execute();
    },
    /** Attempts per outcome, over every message: for benchmarks and operators. */
    async outcomeCounts(): Promise<{ outcome: string; n: number }[]> {
      const rows = await db
        .selectFrom('delivery_attempts')
        .select((eb) => ['outcome', eb.fn.countAll().as('n')])
        .groupBy('outcome')
        .execute();
      return rows.map((r) => ({ outcome: r.outcome, n: Number(r.n) }));
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    deliveryAttempts: ReturnType<typeof createDeliveryAttemptsRepository>;
  }
}
