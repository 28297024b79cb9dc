import { sql, type Kysely } from 'kysely';

// SES's events arriving through SNS (POST /v1/inbound/ses, src/ses-events/).
// - sns_notifications: every notification that passed the checks, keyed by SNS's MessageId, so a
//   replay is recorded once. It is written before the 200 is answered and applied after, so a row
//   still `received` is work a process died before doing: the pending index finds those at start
//   and in the periodic pass, and holds only them.
// - sns_subscriptions: one row per allowed topic whose SubscriptionConfirmation came; `pending`
//   until the SubscribeURL answered, which /readyz shows (several processes may serve).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sns_notifications')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('topic_arn', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text')
    .addColumn('tries', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('applied_at', 'text')
    .execute();
  await sql`create index sns_notifications_pending_idx on sns_notifications (received_at, id) where state = 'received'`.execute(db);
  await db.schema.createIndex('sns_notifications_received_idx').on('sns_notifications').columns(['received_at', 'id']).execute();

  await db.schema
    .createTable('sns_subscriptions')
    .addColumn('topic_arn', 'text', (c) => c.primaryKey().notNull())
    .addColumn('subscribe_url', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('requested_at', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sns_subscriptions').ifExists().execute();
  await db.schema.dropTable('sns_notifications').ifExists().execute();
}
