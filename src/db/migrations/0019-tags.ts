import { sql, type Kysely } from 'kysely';
import { storeKindOfDb } from '../database.js';

// Tags of a send (issue 16, point 4; lib/tags.ts):
// - messages.tags: the JSON object {name: value} in request order, null when none;
// - log_entries.tags: the same on each entry of the message (its bounce and complaint entries copy
//   it from the send entry), so a page of the log reads them off the rows it lists rather than off
//   the message rows, whose bodies may run to overflow pages;
// - log_entry_tags: one row per tag per entry, written with the entry. Its key (workspace, name,
//   value, created_at, entry id) is the index the logs' `tag=name:value` filter reads: newest first
//   in the log's own order, so a page and the cursor of keyset paging need no sort at any log size,
//   and the count (up to 1,001) reads the key alone. On SQLite the rows live in the key's b-tree.
// Rows written before this migration carry no tags.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('tags', 'text').execute();
  await db.schema.alterTable('log_entries').addColumn('tags', 'text').execute();
  let table = db.schema
    .createTable('log_entry_tags')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('log_id', 'text', (c) => c.notNull());
  if (storeKindOfDb(db) === 'sqlite') table = table.modifyEnd(sql`without rowid`);
  await table.addPrimaryKeyConstraint('log_entry_tags_pk', ['workspace_id', 'name', 'value', 'created_at', 'log_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('log_entry_tags').ifExists().execute();
  await db.schema.alterTable('log_entries').dropColumn('tags').execute();
  await db.schema.alterTable('messages').dropColumn('tags').execute();
}
