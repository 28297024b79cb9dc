/** What the dashboard API answers about templates: /v1/templates's shapes (docs/templates.md). */
export interface VariableDeclaration {
  key: string;
  type: 'string' | 'number';
  fallback_value: string | number | null;
}

export interface TemplateContent {
  subject: string | null;
  html: string;
  text: string | null;
  from: string | null;
  reply_to: string | null;
  variables: VariableDeclaration[];
  layout_id: string | null;
}

export interface Template extends TemplateContent {
  id: string;
  kind: 'template' | 'layout';
  name: string;
  alias: string | null;
  status: 'draft' | 'published';
  published_at: string | null;
  has_unpublished_versions: boolean;
  current_version_id: string;
  created_at: string;
  updated_at: string;
}

export interface TemplateVersion extends TemplateContent {
  id: string;
  version: number;
  published_at: string;
}

export interface TemplateList {
  templates: Template[];
  total: number;
}

export interface Rendered {
  subject: string | null;
  html: string;
  text: string;
}

/** A template's state in words: a draft never published, published, or published with a draft waiting. */
export function statusOf(t: Pick<Template, 'status' | 'has_unpublished_versions'>): { label: string; badge: string } {
  if (t.status === 'draft') return { label: 'Draft', badge: 'badge-pending' };
  if (t.has_unpublished_versions) return { label: 'Published, draft waiting', badge: 'badge-pending' };
  return { label: 'Published', badge: 'badge-verified' };
}

export const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
