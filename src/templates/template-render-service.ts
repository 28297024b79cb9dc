import type { Repositories, Store } from '../db/store.js';
import { ValidationError } from '../lib/errors.js';
import { RenderLimitError } from './template-language.js';
import { createTemplateRenderer, type RenderedMessage, type RenderPurpose } from './template-renderer.js';
import { currentRow, templateNotFound } from './template-service.js';
import type { TemplateRow, TemplateVersionRow } from './templates-repository.js';

/** What a send names: `template: {id, variables?, version?}` (id or alias; version a published version's number). */
export interface TemplateReference {
  id: string;
  variables?: Record<string, unknown>;
  version?: number;
}

/** A send's content rendered from a template, with the template's sender fields and which version it was. */
export interface RenderedSend extends RenderedMessage {
  from: string | null;
  reply_to: string | null;
  template_id: string;
  version: number;
}

/** Previews and sends: a template's version found, checked against the variables given and rendered within its bounds. */
export function createTemplateRenderService(store: Store) {
  const renderer = createTemplateRenderer();

  async function layoutOf(repos: Repositories, workspaceId: string, version: TemplateVersionRow): Promise<TemplateVersionRow | undefined> {
    if (version.layout_id === null) return undefined;
    const layout = await repos.templates.findByIdOrAlias(workspaceId, version.layout_id);
    // A deleted layout leaves the templates that named it unwrapped rather than unsendable.
    if (!layout) return undefined;
    const versions = await repos.templates.currentVersions([layout]);
    return versions.find((v) => v.id === layout.published_version_id) ?? currentRow(layout, versions);
  }

  async function versionOf(repos: Repositories, template: TemplateRow, number: number | undefined, fallback: 'current' | 'published'): Promise<TemplateVersionRow> {
    if (number !== undefined) {
      const version = await repos.templates.findVersionByNumber(template.id, number);
      if (!version) throw new ValidationError(`template "${template.alias ?? template.id}" has no published version ${number}`);
      return version;
    }
    const versions = await repos.templates.currentVersions([template]);
    if (fallback === 'current') return currentRow(template, versions);
    const published = versions.find((v) => v.id === template.published_version_id);
    if (!published) throw new ValidationError(`template "${template.alias ?? template.id}" is not published`);
    return published;
  }

  function render(version: TemplateVersionRow, layout: TemplateVersionRow | undefined, variables: Record<string, unknown> | undefined, purpose: RenderPurpose): RenderedMessage {
    try {
      return renderer.render(version, layout, variables, purpose);
    } catch (error) {
      if (error instanceof RenderLimitError) throw new ValidationError(error.message);
      throw error;
    }
  }

  return {
    /** POST /v1/templates/{id}/render: the draft (else the published version) unless a version is named. */
    async preview(workspaceId: string, idOrAlias: string, request: { variables?: Record<string, unknown>; version?: number }): Promise<RenderedMessage> {
      const { version, layout } = await store.snapshot(async (repos) => {
        const template = await repos.templates.findByIdOrAlias(workspaceId, idOrAlias);
        if (!template) throw templateNotFound();
        const found = await versionOf(repos, template, request.version, 'current');
        return { version: found, layout: await layoutOf(repos, workspaceId, found) };
      });
      return render(version, layout, request.variables, 'preview');
    },

    /**
     * Renders sends' templates for one request: each template a send names (its published version unless one
     * is named) is looked up once, so a batch of 100 sends naming one template reads it once and renders it 100
     * times; the next request looks again, and sees a publish or a delete made meanwhile. A template that is not
     * there is the send's 400.
     */
    forRequest(): (workspaceId: string, reference: TemplateReference) => Promise<RenderedSend> {
      const found = new Map<string, Promise<{ template: TemplateRow; version: TemplateVersionRow; layout: TemplateVersionRow | undefined }>>();
      const lookUp = (workspaceId: string, reference: TemplateReference) =>
        store.snapshot(async (repos) => {
          const template = await repos.templates.findByIdOrAlias(workspaceId, reference.id);
          if (!template || template.kind !== 'template') throw new ValidationError(`template.id "${reference.id}" names no template of this workspace`);
          const version = await versionOf(repos, template, reference.version, 'published');
          return { template, version, layout: await layoutOf(repos, workspaceId, version) };
        });
      return async (workspaceId, reference) => {
        const key = `${workspaceId}\0${reference.id}\0${reference.version ?? ''}`;
        let lookup = found.get(key);
        if (!lookup) found.set(key, (lookup = lookUp(workspaceId, reference)));
        const { template, version, layout } = await lookup;
        const rendered = render(version, layout, reference.variables, 'send');
        return { ...rendered, from: version.from_address, reply_to: version.reply_to, template_id: template.id, version: version.number! };
      };
    },
  };
}
