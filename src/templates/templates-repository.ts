import type { Db } from '../db/database.js';
import type { TemplatesTable, TemplateVersionsTable } from '../db/schema.js';

export type TemplateRow = TemplatesTable;
export type TemplateVersionRow = TemplateVersionsTable;
/** What a draft's edit may change. */
export type VersionContent = Pick<TemplateVersionRow, 'subject' | 'html' | 'text' | 'from_address' | 'reply_to' | 'variables' | 'layout_id'>;

/** `templates` and `template_versions`: the only SQL of templates. */
export function createTemplatesRepository(db: Db) {
  return {
    async insertTemplate(row: TemplateRow): Promise<void> {
      await db.insertInto('templates').values(row).execute();
    },

    async insertVersion(row: TemplateVersionRow): Promise<void> {
      await db.insertInto('template_versions').values(row).execute();
    },

    /** A template of the workspace by its id or, failing that, its alias. */
    async findByIdOrAlias(workspaceId: string, idOrAlias: string): Promise<TemplateRow | undefined> {
      return db
        .selectFrom('templates')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where((eb) => eb.or([eb('id', '=', idOrAlias), eb('alias', '=', idOrAlias)]))
        .orderBy('id')
        .executeTakeFirst();
    },

    /** A page of the workspace's templates, newest first (ids sort by creation time), and how many there are. */
    async list(workspaceId: string, limit: number, offset: number): Promise<{ rows: TemplateRow[]; total: number }> {
      const rows = await db.selectFrom('templates').selectAll().where('workspace_id', '=', workspaceId).orderBy('id', 'desc').limit(limit).offset(offset).execute();
      const count = await db.selectFrom('templates').select((eb) => eb.fn.countAll().as('n')).where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow();
      return { rows, total: Number(count.n) };
    },

    /** The drafts and published versions of these templates that a view shows (the draft, else the published one). */
    async currentVersions(templates: TemplateRow[]): Promise<TemplateVersionRow[]> {
      if (templates.length === 0) return [];
      const published = templates.map((t) => t.published_version_id).filter((id): id is string => id !== null);
      return db
        .selectFrom('template_versions')
        .selectAll()
        .where((eb) =>
          eb.or([
            eb.and([eb('template_id', 'in', templates.map((t) => t.id)), eb('state', '=', 'draft')]),
            ...(published.length > 0 ? [eb('id', 'in', published)] : []),
          ]),
        )
        .execute();
    },

    async findDraft(templateId: string): Promise<TemplateVersionRow | undefined> {
      return db.selectFrom('template_versions').selectAll().where('template_id', '=', templateId).where('state', '=', 'draft').executeTakeFirst();
    },

    async findVersion(templateId: string, versionId: string): Promise<TemplateVersionRow | undefined> {
      return db.selectFrom('template_versions').selectAll().where('template_id', '=', templateId).where('id', '=', versionId).executeTakeFirst();
    },

    async findVersionByNumber(templateId: string, number: number): Promise<TemplateVersionRow | undefined> {
      return db.selectFrom('template_versions').selectAll().where('template_id', '=', templateId).where('number', '=', number).executeTakeFirst();
    },

    /** Every published version, newest first. */
    async listPublished(templateId: string): Promise<TemplateVersionRow[]> {
      return db.selectFrom('template_versions').selectAll().where('template_id', '=', templateId).where('state', '=', 'published').orderBy('number', 'desc').execute();
    },

    async highestNumber(templateId: string): Promise<number> {
      const row = await db.selectFrom('template_versions').select((eb) => eb.fn.max('number').as('n')).where('template_id', '=', templateId).executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async updateDraft(versionId: string, content: VersionContent, now: string): Promise<void> {
      await db.updateTable('template_versions').set({ ...content, updated_at: now }).where('id', '=', versionId).where('state', '=', 'draft').execute();
    },

    /** The draft becomes version `number`; true when it was still a draft (two publishes race: one wins). */
    async publishDraft(versionId: string, number: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('template_versions')
        .set({ state: 'published', number, published_at: now, updated_at: now })
        .where('id', '=', versionId)
        .where('state', '=', 'draft')
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async updateTemplate(id: string, fields: Partial<Pick<TemplateRow, 'name' | 'alias' | 'published_version_id'>>, now: string): Promise<void> {
      await db.updateTable('templates').set({ ...fields, updated_at: now }).where('id', '=', id).execute();
    },

    /** Deletes the template and, by cascade, its versions; true when one of that workspace was deleted. */
    async delete(workspaceId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('templates').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    templates: ReturnType<typeof createTemplatesRepository>;
  }
}
