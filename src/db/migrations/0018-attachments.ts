import { sql, type Kysely } from 'kysely';
import { storeKindOfDb } from '../database.js';

// Attachments of a send (issue 16, point 2), one row each, written in the acceptance transaction with
// their message (a send is all or nothing) and read by the worker at build time. `content` holds the
// decoded bytes: SQLite BLOB, PostgreSQL bytea (schema-parity reads both as `binary`). `position` keeps
// request order; `content_id` (without angle brackets) makes the attachment inline.
export async function up(db: Kysely<unknown>): Promise<void> {
  const bytes = storeKindOfDb(db) === 'postgres' ? sql`bytea` : sql`blob`;
  await db.schema
    .createTable('message_attachments')
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('content_id', 'text')
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('content', bytes, (c) => c.notNull())
    .addPrimaryKeyConstraint('message_attachments_pkey', ['message_id', 'position'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('message_attachments').ifExists().execute();
}
