import { ValidationError } from '../lib/errors.js';
import type { RenderValues } from './template-language.js';

export const VARIABLE_TYPES = ['string', 'number'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

export interface VariableDeclaration {
  key: string;
  type: VariableType;
  fallback_value?: string | number | null;
}

export const MAX_VARIABLES = 50;
/** Letters, digits and `_`, not starting with a digit: a name a tag can hold, with no `.` path to walk. */
const KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;
/** `{{{content}}}` is where a layout puts the template it wraps. */
export const LAYOUT_CONTENT_KEY = 'content';

const typeOf = (value: unknown): VariableType | undefined =>
  typeof value === 'string' ? 'string' : typeof value === 'number' && Number.isFinite(value) ? 'number' : undefined;

/** The declaration as saved, or a 400 naming every key that is wrong in it. */
export function checkDeclarations(declarations: VariableDeclaration[]): VariableDeclaration[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  if (declarations.length > MAX_VARIABLES) problems.push(`variables may declare at most ${MAX_VARIABLES} keys`);
  for (const { key, type, fallback_value } of declarations) {
    if (!KEY_PATTERN.test(key) || key === '__proto__') problems.push(`variable key "${key}" must be letters, digits and _, not starting with a digit`);
    else if (key === LAYOUT_CONTENT_KEY) problems.push(`variable key "${key}" is reserved for a layout's content`);
    else if (seen.has(key)) problems.push(`variable "${key}" is declared twice`);
    seen.add(key);
    if (fallback_value !== undefined && fallback_value !== null && typeOf(fallback_value) !== type) {
      problems.push(`variable "${key}" has a fallback_value that is not a ${type}`);
    }
  }
  if (problems.length > 0) throw new ValidationError(problems.join('; '));
  return declarations.map(({ key, type, fallback_value }) => ({ key, type, fallback_value: fallback_value ?? null }));
}

/** Every tag of the template names a declared variable (or a layout's content): anything else is refused at save. */
export function checkNamesDeclared(names: Iterable<string>, declarations: VariableDeclaration[], kind: 'template' | 'layout'): string[] {
  const declared = new Set(declarations.map((d) => d.key));
  if (kind === 'layout') declared.add(LAYOUT_CONTENT_KEY);
  return [...names].filter((name) => !declared.has(name)).map((name) => `template uses variable "${name}", which is not declared`);
}

/**
 * The values a render gets: every given key declared and of its type, every declared key given or with a
 * fallback. A 400 names every problem at once, before anything is written. The map has no prototype, so a
 * tag can reach nothing but these entries.
 */
export function renderValues(declarations: VariableDeclaration[], given: Record<string, unknown> = {}): RenderValues {
  const problems: string[] = [];
  const values: Record<string, string | number> = Object.create(null);
  const declared = new Map(declarations.map((d) => [d.key, d]));
  for (const key of Object.keys(given)) {
    if (!declared.has(key)) problems.push(`template variable "${key}" is not declared`);
  }
  for (const { key, type, fallback_value } of declarations) {
    const value = Object.hasOwn(given, key) ? given[key] : undefined;
    if (value === undefined || value === null) {
      if (fallback_value === undefined || fallback_value === null) problems.push(`template variable "${key}" is missing`);
      else values[key] = fallback_value;
    } else if (typeOf(value) !== type) {
      problems.push(`template variable "${key}" must be a ${type}`);
    } else {
      values[key] = value as string | number;
    }
  }
  if (problems.length > 0) throw new ValidationError(problems.join('; '));
  return values;
}
