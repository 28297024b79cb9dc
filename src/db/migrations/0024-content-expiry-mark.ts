import { sql, type Kysely } from 'kysely';
import { storeKindOfDb } from '../database.js';

// How far the content pass of retention has come, instead of an index of the messages whose content
// is kept (issue 19). Every new message entered messages_content_kept_idx (0021), one more B-tree
// written at every commit of sends for a pass that runs every ten minutes. Instead:
// - retention_marks: per pass (`content`), the last message id it has passed. Ids are in creation
//   order, so the pass walks the primary key from there up to its age boundary.
// - retention_held: the messages it passed while their job was still pending (scheduled, or waiting
//   for a retry), to expire once the job is done: few, and found by their job's key.
// The mark starts after the last message before the first one whose content is kept (read off the
// old index before it goes), so the first pass does not walk what earlier passes expired.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('retention_marks')
    .addColumn('name', 'text', (c) => c.primaryKey().notNull())
    .addColumn('after_id', 'text', (c) => c.notNull())
    .execute();
  let held = db.schema.createTable('retention_held').addColumn('message_id', 'text', (c) => c.primaryKey().notNull().references('messages.id').onDelete('cascade'));
  if (storeKindOfDb(db) === 'sqlite') held = held.modifyEnd(sql`without rowid`);
  await held.execute();

  const { rows: kept } = await sql<{ id: string | null }>`select min(id) as id from messages where content_expired_at is null`.execute(db);
  const firstKept = kept[0]?.id ?? null;
  const { rows: before } = await (firstKept === null
    ? sql<{ id: string | null }>`select max(id) as id from messages`
    : sql<{ id: string | null }>`select max(id) as id from messages where id < ${firstKept}`
  ).execute(db);
  await sql`insert into retention_marks (name, after_id) values ('content', ${before[0]?.id ?? ''})`.execute(db);

  await db.schema.dropIndex('messages_content_kept_idx').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('messages_content_kept_idx').on('messages').column('id').where(sql.ref('content_expired_at'), 'is', null).execute();
  await db.schema.dropTable('retention_held').execute();
  await db.schema.dropTable('retention_marks').execute();
}
