import { type Kysely } from 'kysely';

// A workspace's own upstreams (SMTP relays, SES accounts), the route of each domain through them, and the
// health every process on the store shares:
// - upstreams: the settings anyone may read in `settings` (JSON: the URL without its password, the
//   region, the access key id), the password or secret access key sealed in `secret`;
// - domains.upstream_ids: a JSON array of upstream ids in the order they are tried; null: the server's;
// - upstream_health: per upstream (its id, or `server:<provider>` for MAILROOM_PROVIDER's), the failures
//   of the current minute, whether it is down and until when, and who holds its probe;
// - delivery_attempts.upstream: which upstream an attempt went to (and the counts of the last hour).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('upstreams')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('secret', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('upstreams_workspace_name_idx').on('upstreams').columns(['workspace_id', 'name']).unique().execute();
  await db.schema.alterTable('domains').addColumn('upstream_ids', 'text').execute();
  await db.schema
    .createTable('upstream_health')
    .addColumn('key', 'text', (c) => c.primaryKey().notNull())
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('window_started_at', 'text')
    .addColumn('down_until', 'text')
    .addColumn('probe_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'text')
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('delivery_attempts').addColumn('upstream', 'text').execute();
  await db.schema.createIndex('delivery_attempts_upstream_idx').on('delivery_attempts').columns(['upstream', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('delivery_attempts_upstream_idx').execute();
  await db.schema.alterTable('delivery_attempts').dropColumn('upstream').execute();
  await db.schema.dropTable('upstream_health').execute();
  await db.schema.alterTable('domains').dropColumn('upstream_ids').execute();
  await db.schema.dropTable('upstreams').execute();
}
