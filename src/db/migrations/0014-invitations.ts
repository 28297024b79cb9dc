import type { Kysely } from 'kysely';

// Workspace invitations (issue 14): an admin makes a single-use link, valid for 7 days, that lets whoever
// opens it join the workspace with the role chosen, signing in or creating an account. Only the SHA-256
// of the link's random token is kept. A row is pending while accepted_at and revoked_at are both null and
// expires_at is ahead; accepting takes it with one conditional UPDATE, so a link is used once.
// The inviter's pending links go with their account (cascade); an acceptor or revoker deleted later
// leaves the record of what happened, without the name.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_by', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .addColumn('accepted_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('revoked_at', 'text')
    .addColumn('revoked_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('invitations_workspace_idx').on('invitations').columns(['workspace_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('invitations').ifExists().execute();
}
