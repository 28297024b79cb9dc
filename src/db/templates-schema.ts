/** The tables of templates (migration 0029); part of `Database` in schema.ts. */

/** A template a send can name, or a layout (`kind: 'layout'`) other templates are wrapped in. */
export interface TemplatesTable {
  id: string;
  workspace_id: string;
  kind: 'template' | 'layout';
  name: string;
  /** Unique in the workspace when set: a send or a URL may name the template by it. */
  alias: string | null;
  /** The version sends use by default; null until the first publish. */
  published_version_id: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * One content of a template: the draft (at most one per template, `number` null) or a published version
 * (`number` 1, 2, … in publishing order), which is never changed again: a send names it.
 */
export interface TemplateVersionsTable {
  id: string;
  template_id: string;
  state: 'draft' | 'published';
  number: number | null;
  subject: string | null;
  html: string;
  text: string | null;
  from_address: string | null;
  reply_to: string | null;
  /** JSON: [{key, type, fallback_value}]. */
  variables: string;
  layout_id: string | null;
  created_at: string;
  updated_at: string;
  published_at: string | null;
}
