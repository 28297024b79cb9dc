import { sql, type Kysely } from 'kysely';

// Templates (src/templates/):
// - templates: the resource (a template or a layout), its name and its alias, unique in the workspace;
//   published_version_id names the version sends use.
// - template_versions: the draft (number null, at most one per template: the partial unique index) and every
//   published version (number 1, 2, …), kept so that a send may name one and the list shows them all.
// - messages.template_id / template_version: the template and version a message was rendered from.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('templates')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('alias', 'text')
    .addColumn('published_version_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('templates_workspace_idx').on('templates').columns(['workspace_id', 'id']).execute();
  await sql`create unique index templates_alias_idx on templates (workspace_id, alias) where alias is not null`.execute(db);

  await db.schema
    .createTable('template_versions')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('template_id', 'text', (c) => c.notNull().references('templates.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('number', 'integer')
    .addColumn('subject', 'text')
    .addColumn('html', 'text', (c) => c.notNull())
    .addColumn('text', 'text')
    .addColumn('from_address', 'text')
    .addColumn('reply_to', 'text')
    .addColumn('variables', 'text', (c) => c.notNull())
    .addColumn('layout_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .execute();
  await db.schema.createIndex('template_versions_number_idx').on('template_versions').columns(['template_id', 'number']).unique().execute();
  await sql`create unique index template_versions_draft_idx on template_versions (template_id) where state = 'draft'`.execute(db);

  await db.schema.alterTable('messages').addColumn('template_id', 'text').execute();
  await db.schema.alterTable('messages').addColumn('template_version', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('template_version').execute();
  await db.schema.alterTable('messages').dropColumn('template_id').execute();
  await db.schema.dropTable('template_versions').execute();
  await db.schema.dropTable('templates').execute();
}
