import type { Kysely } from 'kysely';

// GET /v1/suppressions pages a workspace's list newest first, (created_at, email)
// descending, optionally filtered by reason, with the total matching. The
// primary key (workspace_id, email) serves the send path's lookups but not that
// order: with these indexes a page, and its COUNT, come off an index range.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('suppressions_page_idx').on('suppressions').columns(['workspace_id', 'created_at', 'email']).execute();
  await db.schema
    .createIndex('suppressions_reason_page_idx')
    .on('suppressions')
    .columns(['workspace_id', 'reason', 'created_at', 'email'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('suppressions_reason_page_idx').execute();
  await db.schema.dropIndex('suppressions_page_idx').execute();
}
