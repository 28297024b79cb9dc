import { sql, type Kysely } from 'kysely';

// The upstream's own id for a hand-over (SES's MessageId): shown with the attempt, and how the upstream's
// later events (SES through SNS) find the recipients they are about. Indexed only where there is one:
// the sandbox and SMTP relays give none, and their attempts add nothing to the index.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('delivery_attempts').addColumn('provider_message_id', 'text').execute();
  await db.schema
    .createIndex('delivery_attempts_provider_message_idx')
    .on('delivery_attempts')
    .column('provider_message_id')
    .where(sql.ref('provider_message_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('delivery_attempts_provider_message_idx').execute();
  await db.schema.alterTable('delivery_attempts').dropColumn('provider_message_id').execute();
}
