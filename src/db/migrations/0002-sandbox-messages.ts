import type { Kysely } from 'kysely';

// The sandbox provider's mailbox: every message it "sends", as built, for a developer to read back.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sandbox_messages')
    .addColumn('message_id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('envelope_from', 'text', (c) => c.notNull())
    .addColumn('envelope_to', 'text', (c) => c.notNull())
    .addColumn('raw', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
