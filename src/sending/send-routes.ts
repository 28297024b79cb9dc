import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sendingKeyOf, workspaceOf } from '../http/api-guard.js';
import { createBodyBudget } from '../http/body-budget.js';
import { ok } from '../http/envelope.js';
import { SEND_BODY_LIMIT } from './send-memory.js';
import type { ByteBudget } from '../lib/byte-budget.js';
import { IDEMPOTENCY_HEADER } from './idempotency/idempotency-hooks.js';
import { apiResponses, BODY_ERRORS } from '../openapi/index.js';

/** The body limit of the send routes (sending/send-memory.ts), re-exported for the routes beside them. */
export { SEND_BODY_LIMIT };

const OptionalText = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const OptionalAddresses = Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()]));

/** One attachment: content in base64; a content_id makes it inline (sending/attachments). */
const Attachment = Type.Object(
  {
    filename: Type.String(),
    content: Type.String(),
    content_type: OptionalText,
    content_id: OptionalText,
  },
  { additionalProperties: false },
);

/** In place of subject, html and text (docs/templates.md): variables are checked against the template's declaration. */
const SendTemplate = Type.Object(
  {
    id: Type.String({ description: 'tpl_… or the alias' }),
    variables: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
    version: Type.Optional(Type.Union([Type.Integer({ minimum: 1, description: 'A published version; by default the published one.' }), Type.Null()])),
  },
  { additionalProperties: false },
);

// Types only: recipient count, address syntax and header safety are the send service's rules.
// Also the dashboard's (dashboard/): one rule for both ways in.
export const SendBody = Type.Object(
  {
    to: Type.Array(Type.String()),
    cc: OptionalAddresses,
    bcc: OptionalAddresses,
    // Required unless a template gives them (sending/template-send.ts says which is missing).
    from_email: Type.Optional(Type.String()),
    subject: Type.Optional(Type.String()),
    html: OptionalText,
    text: OptionalText,
    reply_to: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()])),
    headers: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
    // Names and values are checked by the send service (lib/tags.ts), which can say what they may hold.
    tags: Type.Optional(Type.Union([Type.Array(Type.Object({ name: Type.String(), value: Type.String() }, { additionalProperties: false })), Type.Null()])),
    scheduled_at: OptionalText,
    attachments: Type.Optional(Type.Union([Type.Array(Attachment), Type.Null()])),
    template: Type.Optional(Type.Union([SendTemplate, Type.Null()])),
    track_opens: Type.Optional(Type.Union([Type.Boolean({ description: "Track this message's opens; by default as the sender domain's `open_tracking` says." }), Type.Null()])),
    track_clicks: Type.Optional(Type.Union([Type.Boolean({ description: "Track this message's clicks; by default as the sender domain's `click_tracking` says." }), Type.Null()])),
  },
  { additionalProperties: false },
);

/** POST /v1/send/batch: an array of sends; a schema error names the item (`[3].to must be an array`). */
export const SendBatchBody = Type.Array(SendBody);

/** DESIGN.md §2: the result of one send; `error` only with `failed`. */
const SendResult = Type.Object(
  {
    message_id: Type.String({ description: 'msg_…: correlates log entries and webhook events with this send.' }),
    status: Type.String({ enum: ['sent', 'suppressed', 'failed'] }),
    error: Type.Optional(Type.String({ description: 'Why the send failed (with status failed only).' })),
  },
  { additionalProperties: false },
);

/** Checked by the idempotency hooks, which say what is wrong; here for the document. */
const IdempotencyHeaders = Type.Object({
  [IDEMPOTENCY_HEADER]: Type.Optional(Type.String({ description: '1 to 256 characters: a retry with the same key and body answers the first response again (24 hours).' })),
});
const SEND_RESPONSE_OPTIONS = { errors: [...BODY_ERRORS, 409 as const], idempotent: true };
const SEND_SCHEMA = {
  operationId: 'sendEmail',
  summary: 'Send an e-mail',
  tags: ['Sending'],
  headers: IdempotencyHeaders,
  body: SendBody,
  response: apiResponses({ 200: SendResult }, SEND_RESPONSE_OPTIONS),
};
const SEND_BATCH_SCHEMA = {
  operationId: 'sendBatch',
  summary: 'Send 1 to 100 e-mails at once, all or nothing',
  tags: ['Sending'],
  headers: IdempotencyHeaders,
  body: SendBatchBody,
  response: apiResponses({ 200: Type.Array(SendResult) }, SEND_RESPONSE_OPTIONS),
};

/**
 * Route hooks over the one memory budget every way in draws on (/v1,
 * compat/resend and SMTP submission alike, services.sendMemory): a large send
 * through any of them takes from the same memory.
 */
export function sendBodyBudgetHooks(app: { services: { sendMemory: ByteBudget } }): ReturnType<typeof createBodyBudget>['hooks'] {
  return createBodyBudget(app.services.sendMemory, SEND_BODY_LIMIT).hooks;
}

const sendRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const hooks = sendBodyBudgetHooks(app);
  app.post('/v1/send', { bodyLimit: SEND_BODY_LIMIT, ...hooks, schema: SEND_SCHEMA, config: { rateLimitClass: 'send', idempotent: true, keyCheckedOnWrite: true } }, async (request) =>
    ok(await app.services.send.accept(workspaceOf(request), request.body, sendingKeyOf(request))),
  );
  // A top-level array, as Resend's batch route takes; its length (1–100) is the service's rule, for a clearer sentence.
  // One request of the `send` class for the rate limit, whatever the number of items.
  app.post('/v1/send/batch', { bodyLimit: SEND_BODY_LIMIT, ...hooks, schema: SEND_BATCH_SCHEMA, config: { rateLimitClass: 'send', idempotent: true, keyCheckedOnWrite: true } }, async (request) =>
    ok(await app.services.send.acceptBatch(workspaceOf(request), request.body, sendingKeyOf(request))),
  );
};

export default sendRoutes;
