import { ValidationError } from '../lib/errors.js';
import { compileTemplate, TemplateSyntaxError } from './template-language.js';
import { checkDeclarations, checkNamesDeclared, LAYOUT_CONTENT_KEY, type VariableDeclaration } from './template-variables.js';
import type { VersionContent } from './templates-repository.js';

/** The content fields of a create or an edit, as the API names them. */
export interface TemplateContentInput {
  subject?: string | null;
  html?: string;
  text?: string | null;
  from?: string | null;
  reply_to?: string | null;
  variables?: VariableDeclaration[];
  layout_id?: string | null;
}

/**
 * The content as stored, once every part parses and names only declared variables (a layout's HTML must
 * hold `{{{content}}}`): a template that cannot render is refused at save, with the line and column.
 */
export function checkContent(kind: 'template' | 'layout', content: Required<TemplateContentInput>): VersionContent {
  const declarations = checkDeclarations(content.variables);
  const problems: string[] = [];
  const names = new Set<string>();
  for (const [field, source] of [['subject', content.subject], ['html', content.html], ['text', content.text]] as const) {
    if (source === null) continue;
    try {
      const compiled = compileTemplate(field, source);
      for (const name of compiled.names) names.add(name);
      if (kind === 'layout' && field === 'html' && !compiled.tokens.some(([type, value]) => type === '&' && value === LAYOUT_CONTENT_KEY)) {
        problems.push(`a layout's html must hold {{{${LAYOUT_CONTENT_KEY}}}}, where the template it wraps goes`);
      }
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      problems.push(error.message);
    }
  }
  problems.push(...checkNamesDeclared(names, declarations, kind));
  if (kind === 'layout' && content.layout_id !== null) problems.push('a layout cannot have a layout_id');
  if (problems.length > 0) throw new ValidationError(problems.join('; '));
  return {
    subject: content.subject,
    html: content.html,
    text: content.text,
    from_address: content.from,
    reply_to: content.reply_to,
    variables: JSON.stringify(declarations),
    layout_id: content.layout_id,
  };
}
