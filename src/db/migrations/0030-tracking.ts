import type { Kysely } from 'kysely';

// Open and click tracking (src/tracking/):
// - domains.open_tracking / click_tracking: the domain's switches (0 or 1, off by default); tracking_domain the
//   host tracked links and the pixel use instead of PUBLIC_URL, with its CNAME's check (tracking_domain_status).
// - messages.track_opens / track_clicks: what applies to the message, settled at acceptance (the send's own
//   choice, else its domain's), so that a switch changed later does not change mail already accepted.
// - engagement_hourly: the counts of GET /v1/send/stats/engagement per workspace and hour of the open or click,
//   and the recipients handed over with tracking on (the rates' denominators) per hour of the hand-over.
// - engagement_firsts: the first person's open and click of each recipient, which makes a unique one.
// The counters of engagement_hourly, as the API lists them, then the rates' denominators.
const COUNT_COLUMNS = ['opened', 'unique_opened', 'clicked', 'unique_clicked', 'machine_opened', 'machine_clicked', 'tracked_opens', 'tracked_clicks'];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('domains').addColumn('open_tracking', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('domains').addColumn('click_tracking', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('domains').addColumn('tracking_domain', 'text').execute();
  await db.schema.alterTable('domains').addColumn('tracking_domain_status', 'text').execute();
  await db.schema.alterTable('messages').addColumn('track_opens', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('messages').addColumn('track_clicks', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  let table = db.schema
    .createTable('engagement_hourly')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('hour', 'text', (c) => c.notNull());
  for (const column of COUNT_COLUMNS) table = table.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0));
  await table.addPrimaryKeyConstraint('engagement_hourly_pk', ['workspace_id', 'hour']).execute();

  await db.schema
    .createTable('engagement_firsts')
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('recipient_index', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('engagement_firsts_pk', ['message_id', 'recipient_index', 'kind'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('engagement_firsts').execute();
  await db.schema.dropTable('engagement_hourly').execute();
  for (const column of ['track_clicks', 'track_opens']) await db.schema.alterTable('messages').dropColumn(column).execute();
  for (const column of ['tracking_domain_status', 'tracking_domain', 'click_tracking', 'open_tracking']) await db.schema.alterTable('domains').dropColumn(column).execute();
}
