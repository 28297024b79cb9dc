import type { TemplateRow, TemplateVersionRow } from './templates-repository.js';
import type { VariableDeclaration } from './template-variables.js';

/** What a version holds, as the API names it. */
export interface TemplateContentView {
  subject: string | null;
  html: string;
  text: string | null;
  from: string | null;
  reply_to: string | null;
  variables: VariableDeclaration[];
  layout_id: string | null;
}

/** A template as the API shows it: Resend's fields, the content of its draft if it has one, else of its published version. */
export interface TemplateView extends TemplateContentView {
  id: string;
  kind: 'template' | 'layout';
  name: string;
  alias: string | null;
  status: 'draft' | 'published';
  published_at: string | null;
  has_unpublished_versions: boolean;
  /** The version the content shown is: the draft, else the published one. */
  current_version_id: string;
  created_at: string;
  updated_at: string;
}

/** One published version, as GET /v1/templates/{id}/versions lists it. */
export interface TemplateVersionView extends TemplateContentView {
  id: string;
  version: number;
  published_at: string;
}

const content = (v: TemplateVersionRow): TemplateContentView => ({
  subject: v.subject,
  html: v.html,
  text: v.text,
  from: v.from_address,
  reply_to: v.reply_to,
  variables: JSON.parse(v.variables) as VariableDeclaration[],
  layout_id: v.layout_id,
});

export function templateView(t: TemplateRow, current: TemplateVersionRow, published: TemplateVersionRow | undefined): TemplateView {
  return {
    id: t.id,
    kind: t.kind,
    name: t.name,
    alias: t.alias,
    status: t.published_version_id ? 'published' : 'draft',
    published_at: published?.published_at ?? null,
    has_unpublished_versions: current.state === 'draft',
    current_version_id: current.id,
    ...content(current),
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

export function versionView(v: TemplateVersionRow): TemplateVersionView {
  return { id: v.id, version: v.number ?? 0, ...content(v), published_at: v.published_at ?? v.updated_at };
}
