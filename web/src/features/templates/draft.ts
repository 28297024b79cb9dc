import type { Template, TemplateContent, VariableDeclaration } from './types';

/** A declared variable as its form row holds it: the fallback as typed. */
export interface VariableRow {
  key: string;
  type: 'string' | 'number';
  fallback: string;
}

/** What the editor edits, every field as its input holds it ("" for none). */
export interface Editable {
  name: string;
  alias: string;
  subject: string;
  html: string;
  text: string;
  from: string;
  reply_to: string;
  layout_id: string;
  variables: VariableRow[];
}

export function editableOf(t: Template): Editable {
  return {
    name: t.name,
    alias: t.alias ?? '',
    subject: t.subject ?? '',
    html: t.html,
    text: t.text ?? '',
    from: t.from ?? '',
    reply_to: t.reply_to ?? '',
    layout_id: t.layout_id ?? '',
    variables: t.variables.map((v) => ({ key: v.key, type: v.type, fallback: v.fallback_value === null ? '' : String(v.fallback_value) })),
  };
}

/** The rows as a declaration. A number variable's fallback as a number when it reads as one; anything else goes as typed, for the server to refuse by name. */
export function declarationsOf(rows: VariableRow[]): VariableDeclaration[] {
  // A row just added, its key not typed yet, is not declared yet.
  return rows.filter((row) => row.key.trim() !== '').map(({ key, type, fallback }) => {
    if (fallback === '') return { key: key.trim(), type, fallback_value: null };
    const number = Number(fallback);
    return { key: key.trim(), type, fallback_value: type === 'number' && fallback.trim() !== '' && Number.isFinite(number) ? number : fallback };
  });
}

const orNull = (value: string) => (value.trim() === '' ? null : value);

/** The PATCH body of what changed since `saved`: untouched content is left out, so that a name's change makes no draft. */
export function changesOf(edit: Editable, saved: Editable): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (edit.name !== saved.name) body.name = edit.name;
  if (edit.alias !== saved.alias) body.alias = orNull(edit.alias.trim());
  if (edit.html !== saved.html) body.html = edit.html;
  for (const key of ['subject', 'text', 'from', 'reply_to', 'layout_id'] as const) {
    if (edit[key] !== saved[key]) body[key] = key === 'subject' || key === 'text' ? orNull(edit[key]) : orNull(edit[key].trim());
  }
  if (JSON.stringify(edit.variables) !== JSON.stringify(saved.variables)) body.variables = declarationsOf(edit.variables);
  return body;
}

/** The values a preview or a test send gives: the ones typed, numbers as numbers; a blank one is left to its fallback. */
export function valuesOf(declarations: VariableDeclaration[], typed: Record<string, string>): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  for (const { key, type } of declarations) {
    const value = typed[key];
    if (value === undefined || value === '') continue;
    values[key] = type === 'number' && Number.isFinite(Number(value)) ? Number(value) : value;
  }
  return values;
}

/** The content fields a diff compares, in the editor's order. */
export const CONTENT_FIELDS: Array<{ key: keyof TemplateContent; label: string }> = [
  { key: 'subject', label: 'Subject' },
  { key: 'html', label: 'HTML' },
  { key: 'text', label: 'Text' },
  { key: 'from', label: 'From' },
  { key: 'reply_to', label: 'Reply-to' },
  { key: 'variables', label: 'Variables' },
  { key: 'layout_id', label: 'Layout' },
];
