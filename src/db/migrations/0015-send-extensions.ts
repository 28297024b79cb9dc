import type { Kysely } from 'kysely';

// The send extensions (docs/sending.md, "Send fields"), kept on the message row so every attempt builds the same MIME:
// - cc, bcc: JSON arrays of {name, address}, null when none (`recipients` stays the To list);
// - headers: JSON array of [name, value] pairs, in request order, null when none.
// reply_to keeps its column: it now holds a JSON array, or (rows written before) one {name, address}.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('cc', 'text').execute();
  await db.schema.alterTable('messages').addColumn('bcc', 'text').execute();
  await db.schema.alterTable('messages').addColumn('headers', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('headers').execute();
  await db.schema.alterTable('messages').dropColumn('bcc').execute();
  await db.schema.alterTable('messages').dropColumn('cc').execute();
}
