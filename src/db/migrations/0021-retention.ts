import { sql, type Kysely } from 'kysely';

// Retention (issue 18, point 6; src/retention/):
// - messages.content_expired_at: when the pruner dropped the message's bodies, attachments and MIME,
//   or null while they are kept. Its detail says so rather than failing.
// - messages_content_kept_idx: the messages whose content is still kept, in id (= creation) order, so
//   the pruner finds the next expired ones without walking past the millions it has expired already.
//   Partial: a message leaves it when its content goes.
// - inbound_reports_received_idx: the reports (kept to recognise a report received twice) by age.
// - maintenance_leases: which process runs a background task now (retention), so every process
//   that runs the worker may offer to and only one does the work.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('content_expired_at', 'text').execute();
  await db.schema.createIndex('messages_content_kept_idx').on('messages').column('id').where(sql.ref('content_expired_at'), 'is', null).execute();
  await db.schema.createIndex('inbound_reports_received_idx').on('inbound_reports').columns(['received_at', 'id']).execute();
  await db.schema
    .createTable('maintenance_leases')
    .addColumn('name', 'text', (c) => c.primaryKey().notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('maintenance_leases').ifExists().execute();
  await db.schema.dropIndex('inbound_reports_received_idx').ifExists().execute();
  await db.schema.dropIndex('messages_content_kept_idx').ifExists().execute();
  await db.schema.alterTable('messages').dropColumn('content_expired_at').execute();
}
