import type { Store } from '../db/store.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import { ConflictError, NotFoundError, ValidationError } from '../lib/errors.js';
import { newId, nowIso } from '../lib/ids.js';
import { checkContent, type TemplateContentInput } from './template-content.js';
import { templateView, versionView, type TemplateVersionView, type TemplateView } from './template-view.js';
import type { TemplateRow, TemplateVersionRow } from './templates-repository.js';
import type { Repositories } from '../db/store.js';

export interface TemplateCreateInput extends TemplateContentInput {
  name: string;
  alias?: string | null;
  kind?: 'template' | 'layout';
  html: string;
}

export interface TemplateUpdateInput extends TemplateContentInput {
  name?: string;
  alias?: string | null;
}

export const MAX_NAME_LENGTH = 200;
/** An alias is a name a URL or a send can hold, and never looks like an id. */
const ALIAS_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export const templateNotFound = () => new NotFoundError('Template not found');

function checkAlias(alias: string | null | undefined): string | null {
  if (alias === undefined || alias === null) return null;
  if (!ALIAS_PATTERN.test(alias) || alias.startsWith('tpl_')) {
    throw new ValidationError('alias must be 1–100 letters, digits, ".", "_" or "-", starting with a letter or digit, and not start with tpl_');
  }
  return alias;
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new ValidationError('name must not be empty');
  if (trimmed.length > MAX_NAME_LENGTH) throw new ValidationError(`name must be at most ${MAX_NAME_LENGTH} characters long`);
  return trimmed;
}

/** The version a template's view and edits start from: its draft, else its published version (every template has one of them). */
export function currentRow(template: TemplateRow, versions: TemplateVersionRow[]): TemplateVersionRow {
  const draft = versions.find((v) => v.template_id === template.id && v.state === 'draft');
  return (draft ?? versions.find((v) => v.id === template.published_version_id))!;
}

const aliasTaken = (alias: string | null) => new ConflictError(`A template with the alias "${alias}" already exists`);

/** Templates: the resource, its draft and published versions. Rendering is template-render-service.ts's. */
export function createTemplateService(store: Store) {
  async function find(repos: Repositories, workspaceId: string, idOrAlias: string): Promise<TemplateRow> {
    const template = await repos.templates.findByIdOrAlias(workspaceId, idOrAlias);
    if (!template) throw templateNotFound();
    return template;
  }

  /** The layout a template names, by id or alias, as its id: it must be a layout of the same workspace. */
  async function layoutIdOf(repos: Repositories, workspaceId: string, layoutId: string | null | undefined): Promise<string | null> {
    if (layoutId === undefined || layoutId === null) return null;
    const layout = await repos.templates.findByIdOrAlias(workspaceId, layoutId);
    if (layout?.kind !== 'layout') throw new ValidationError(`layout_id "${layoutId}" names no layout of this workspace`);
    return layout.id;
  }

  async function viewOf(repos: Repositories, template: TemplateRow): Promise<TemplateView> {
    const versions = await repos.templates.currentVersions([template]);
    return assemble(template, versions);
  }

  function assemble(template: TemplateRow, versions: TemplateVersionRow[]): TemplateView {
    return templateView(template, currentRow(template, versions), versions.find((v) => v.id === template.published_version_id));
  }

  async function insertChecked(work: () => Promise<void>, alias: string | null): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw aliasTaken(alias);
      throw error;
    }
  }

  return {
    async create(workspaceId: string, input: TemplateCreateInput): Promise<TemplateView> {
      const kind = input.kind ?? 'template';
      const name = checkName(input.name);
      const alias = checkAlias(input.alias);
      const now = nowIso();
      const template: TemplateRow = { id: newId('tpl'), workspace_id: workspaceId, kind, name, alias, published_version_id: null, created_at: now, updated_at: now };
      let view: TemplateView | undefined;
      await insertChecked(
        () =>
          store.transaction(async (repos) => {
            const layout_id = await layoutIdOf(repos, workspaceId, input.layout_id);
            const content = checkContent(kind, {
              subject: input.subject ?? null, html: input.html, text: input.text ?? null, from: input.from ?? null,
              reply_to: input.reply_to ?? null, variables: input.variables ?? [], layout_id,
            });
            await repos.templates.insertTemplate(template);
            await repos.templates.insertVersion({ id: newId('tplv'), template_id: template.id, state: 'draft', number: null, ...content, created_at: now, updated_at: now, published_at: null });
            view = await viewOf(repos, template);
          }),
        alias,
      );
      return view!;
    },

    async list(workspaceId: string, page: { limit: number; offset: number }): Promise<{ templates: TemplateView[]; total: number }> {
      return store.snapshot(async (repos) => {
        const { rows, total } = await repos.templates.list(workspaceId, page.limit, page.offset);
        const versions = await repos.templates.currentVersions(rows);
        return { templates: rows.map((t) => assemble(t, versions)), total };
      });
    },

    async get(workspaceId: string, idOrAlias: string): Promise<TemplateView> {
      return store.snapshot(async (repos) => viewOf(repos, await find(repos, workspaceId, idOrAlias)));
    },

    /** Edits the draft, making it from the published version first when there is none; name and alias are the template's. */
    async update(workspaceId: string, idOrAlias: string, input: TemplateUpdateInput): Promise<TemplateView> {
      const alias = input.alias === undefined ? undefined : checkAlias(input.alias);
      const name = input.name === undefined ? undefined : checkName(input.name);
      let view: TemplateView | undefined;
      await insertChecked(
        () =>
          store.transaction(async (repos) => {
            const template = await find(repos, workspaceId, idOrAlias);
            const now = nowIso();
            const current = currentRow(template, await repos.templates.currentVersions([template]));
            const given = (key: keyof TemplateContentInput) => input[key] !== undefined;
            if (['subject', 'html', 'text', 'from', 'reply_to', 'variables', 'layout_id'].some((k) => given(k as keyof TemplateContentInput))) {
              const layout_id = given('layout_id') ? await layoutIdOf(repos, workspaceId, input.layout_id) : current.layout_id;
              const content = checkContent(template.kind, {
                subject: given('subject') ? input.subject! : current.subject,
                html: input.html ?? current.html,
                text: given('text') ? input.text! : current.text,
                from: given('from') ? input.from! : current.from_address,
                reply_to: given('reply_to') ? input.reply_to! : current.reply_to,
                variables: input.variables ?? JSON.parse(current.variables),
                layout_id,
              });
              if (current.state === 'draft') await repos.templates.updateDraft(current.id, content, now);
              else await repos.templates.insertVersion({ id: newId('tplv'), template_id: template.id, state: 'draft', number: null, ...content, created_at: now, updated_at: now, published_at: null });
            }
            await repos.templates.updateTemplate(template.id, { ...(name === undefined ? {} : { name }), ...(alias === undefined ? {} : { alias }) }, now);
            view = await viewOf(repos, { ...template, ...(name === undefined ? {} : { name }), ...(alias === undefined ? {} : { alias }), updated_at: now });
          }),
        alias ?? null,
      );
      return view!;
    },

    /** The draft becomes the next published version; without a draft, nothing changes. */
    async publish(workspaceId: string, idOrAlias: string): Promise<TemplateView> {
      return store.transaction(async (repos) => {
        const template = await find(repos, workspaceId, idOrAlias);
        const draft = await repos.templates.findDraft(template.id);
        if (!draft) return viewOf(repos, template);
        const now = nowIso();
        const number = (await repos.templates.highestNumber(template.id)) + 1;
        await repos.templates.publishDraft(draft.id, number, now);
        await repos.templates.updateTemplate(template.id, { published_version_id: draft.id }, now);
        return viewOf(repos, { ...template, published_version_id: draft.id, updated_at: now });
      });
    },

    /** A new template, unpublished and without an alias, whose draft is this one's current content. */
    async duplicate(workspaceId: string, idOrAlias: string): Promise<TemplateView> {
      return store.transaction(async (repos) => {
        const source = await find(repos, workspaceId, idOrAlias);
        const current = currentRow(source, await repos.templates.currentVersions([source]));
        const now = nowIso();
        const copy: TemplateRow = { ...source, id: newId('tpl'), name: `${source.name} (copy)`.slice(0, MAX_NAME_LENGTH), alias: null, published_version_id: null, created_at: now, updated_at: now };
        await repos.templates.insertTemplate(copy);
        await repos.templates.insertVersion({ ...current, id: newId('tplv'), template_id: copy.id, state: 'draft', number: null, created_at: now, updated_at: now, published_at: null });
        return viewOf(repos, copy);
      });
    },

    async remove(workspaceId: string, idOrAlias: string): Promise<{ id: string; deleted: true }> {
      return store.transaction(async (repos) => {
        const template = await find(repos, workspaceId, idOrAlias);
        await repos.templates.delete(workspaceId, template.id);
        return { id: template.id, deleted: true as const };
      });
    },

    async versions(workspaceId: string, idOrAlias: string): Promise<TemplateVersionView[]> {
      return store.snapshot(async (repos) => {
        const template = await find(repos, workspaceId, idOrAlias);
        return (await repos.templates.listPublished(template.id)).map(versionView);
      });
    },
  };
}

export type TemplateService = ReturnType<typeof createTemplateService>;
