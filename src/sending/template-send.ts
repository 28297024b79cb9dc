import { ValidationError } from '../lib/errors.js';
import type { CompleteSendInput, SendInput, TemplateUsed } from './send-request.js';

/** A template's content rendered for one send (templates/ renders it; composition/ hands the function in). */
export interface RenderedTemplate {
  subject: string | null;
  html: string;
  /** Null: made from the HTML when the message is built, as for any send of HTML alone. */
  text: string | null;
  from: string | null;
  reply_to: string | null;
  template_id: string;
  version: number;
}

export type RenderTemplateForSend = (workspaceId: string, template: { id: string; variables?: Record<string, unknown>; version?: number }) => Promise<RenderedTemplate>;

/**
 * A send's subject, HTML and text from its template, rendered now (a later edit of the template never changes
 * what was sent); the template's from and reply_to when the send has none. Without a template, subject and
 * from_email are required as the schema required them before templates existed.
 */
export async function applyTemplate(
  workspaceId: string,
  input: SendInput,
  render: RenderTemplateForSend | undefined,
): Promise<{ input: CompleteSendInput; template: TemplateUsed | undefined }> {
  const { template, ...rest } = input;
  if (!template) {
    if (rest.from_email === undefined) throw new ValidationError('from_email is required');
    if (rest.subject === undefined) throw new ValidationError('subject is required');
    return { input: rest as CompleteSendInput, template: undefined };
  }
  const given = (['subject', 'html', 'text'] as const).filter((field) => rest[field] !== undefined && rest[field] !== null);
  if (given.length > 0) throw new ValidationError(`template cannot be given with ${given.join(', ')}: the template provides the subject, html and text`);
  if (!render) throw new ValidationError('templates cannot be used here');
  const rendered = await render(workspaceId, {
    id: template.id,
    ...(template.variables ? { variables: template.variables } : {}),
    ...(template.version === undefined || template.version === null ? {} : { version: template.version }),
  });
  if (rendered.subject === null) throw new ValidationError(`template "${template.id}" has no subject: give the template one`);
  const from = rest.from_email ?? rendered.from;
  if (from === undefined || from === null) throw new ValidationError('from_email is required: the template has no from');
  return {
    input: { ...rest, from_email: from, subject: rendered.subject, html: rendered.html, text: rendered.text, reply_to: rest.reply_to ?? rendered.reply_to },
    template: { template_id: rendered.template_id, version: rendered.version },
  };
}
