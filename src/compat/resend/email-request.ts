import { Type, type Static } from 'typebox';
import { ValidationError } from '../../lib/errors.js';
import type { SendInput } from '../../sending/index.js';
import { TemplateVariables } from '../../templates/index.js';
import { UnsupportedAttachmentError } from './resend-dialect.js';

const Text = Type.Optional(Type.Union([Type.String(), Type.Null()]));
/** Resend takes one address as a string, several as an array. */
const Addresses = Type.Union([Type.String(), Type.Array(Type.String())]);
const OptionalAddresses = Type.Optional(Type.Union([Addresses, Type.Null()]));

/** What Resend's SDK sends for an attachment: `contentType`/`contentId` become snake_case, Buffers base64. */
const ResendAttachment = Type.Object(
  {
    content: Text,
    filename: Text,
    path: Text,
    content_type: Text,
    content_id: Text,
  },
  { additionalProperties: false },
);

/**
 * POST /compat/resend/emails, in Resend's field names. Types only: the rules
 * are /v1's send rules (send-request.ts), applied after the mapping. Fields
 * Mailroom has no counterpart for (topic_id) are refused by name rather than
 * dropped. `template: {id, variables}` is /v1's (docs/templates.md): `from` and
 * `subject` may then come from the template.
 */
export const ResendEmailBody = Type.Object(
  {
    from: Type.Optional(Type.String()),
    to: Addresses,
    subject: Type.Optional(Type.String()),
    html: Text,
    text: Text,
    cc: OptionalAddresses,
    bcc: OptionalAddresses,
    reply_to: OptionalAddresses,
    headers: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
    tags: Type.Optional(Type.Union([Type.Array(Type.Object({ name: Type.String(), value: Type.String() }, { additionalProperties: false })), Type.Null()])),
    scheduled_at: Text,
    attachments: Type.Optional(Type.Union([Type.Array(ResendAttachment), Type.Null()])),
    template: Type.Optional(Type.Union([Type.Object({ id: Type.String(), variables: Type.Optional(Type.Union([TemplateVariables, Type.Null()])) }, { additionalProperties: false }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type ResendEmail = Static<typeof ResendEmailBody>;

export const ResendBatchBody = Type.Array(ResendEmailBody);

const listOf = (value: string | string[] | null | undefined): string[] | null | undefined => (typeof value === 'string' ? [value] : value);

/** Resend's send request as /v1's: `from` is `from_email`, single addresses become lists, attachments lose `path`. */
export function toSendInput(email: ResendEmail): SendInput {
  return {
    from_email: email.from,
    to: listOf(email.to) ?? [],
    cc: listOf(email.cc),
    bcc: listOf(email.bcc),
    reply_to: email.reply_to,
    subject: email.subject,
    html: email.html,
    text: email.text,
    headers: email.headers,
    tags: email.tags,
    scheduled_at: email.scheduled_at,
    template: email.template,
    attachments: email.attachments?.map((attachment, index) => {
      const field = `attachments[${index}]`;
      if (attachment.path !== undefined && attachment.path !== null) {
        throw new UnsupportedAttachmentError(`${field}.path is not supported: Mailroom fetches no URLs; give the file itself in content, in base64`);
      }
      if (typeof attachment.content !== 'string') throw new UnsupportedAttachmentError(`${field}.content is required (the file in base64)`);
      return { filename: attachment.filename ?? '', content: attachment.content, content_type: attachment.content_type, content_id: attachment.content_id };
    }),
  };
}

/** /v1's sentences name `from_email`, which a Resend client calls `from`. */
export function inResendTerms(error: unknown): unknown {
  if (!(error instanceof ValidationError)) return error;
  const renamed = error.message.replace(/^((?:\[\d+\]\.)?)from_email\b/, '$1from');
  return renamed === error.message ? error : new ValidationError(renamed);
}
