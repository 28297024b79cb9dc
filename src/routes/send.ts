import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { keyDomainOf, workspaceOf } from '../http/api-guard.js';
import { createBodyBudget } from '../http/body-budget.js';
import { ok } from '../http/envelope.js';
import { MAX_ATTACHMENT_BYTES } from '../sending/attachments/attachment-rules.js';
import { IDEMPOTENCY_HEADER } from '../sending/idempotency/idempotency-hooks.js';
import { apiResponses, BODY_ERRORS } from '../openapi/index.js';

/**
 * The body limit of POST /v1/send and /v1/send/batch: every other route's
 * (10 MiB, for the HTML, text and the rest), plus 40 MB of attachments in
 * base64 with a line break every 76 characters, as JSON escapes it (80
 * characters for every 57 bytes): 66 MiB, rounded up to 70 MiB. A batch
 * carries no more attachment bytes than one send (send-service.ts), so it
 * shares the limit: one request never buffers more than one send's worth.
 */
export const SEND_BODY_LIMIT = 70 * 1024 * 1024;
if (SEND_BODY_LIMIT < 10 * 1024 * 1024 + Math.ceil(MAX_ATTACHMENT_BYTES / 57) * 80) throw new Error('SEND_BODY_LIMIT is too small for MAX_ATTACHMENT_BYTES');

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

// Types only: recipient count, address syntax and header safety are the send service's rules.
// Also the dashboard's (dashboard/): one rule for both ways in.
export const SendBody = Type.Object(
  {
    to: Type.Array(Type.String()),
    cc: OptionalAddresses,
    bcc: OptionalAddresses,
    from_email: Type.String(),
    subject: Type.String(),
    html: OptionalText,
    text: OptionalText,
    reply_to: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()])),
    headers: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
    // Names and values are checked by the send service (sending/tags.ts), which can say what they may hold.
    tags: Type.Optional(Type.Union([Type.Array(Type.Object({ name: Type.String(), value: Type.String() }, { additionalProperties: false })), Type.Null()])),
    scheduled_at: OptionalText,
    attachments: Type.Optional(Type.Union([Type.Array(Attachment), Type.Null()])),
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

/** Large send bodies read at once: two of the largest, or more smaller ones (http/body-budget.ts, bench:attachments). */
export const SEND_BODY_BUDGET = 2 * SEND_BODY_LIMIT;

const sendBudgets = new WeakMap<object, ReturnType<typeof createBodyBudget>>();

/**
 * The hooks of the one body budget every send route of an app draws on
 * (/v1 and compat/resend alike): a send through either takes from the same memory.
 */
export function sendBodyBudgetHooks(app: { services: object }): ReturnType<typeof createBodyBudget>['hooks'] {
  let budget = sendBudgets.get(app.services);
  if (!budget) sendBudgets.set(app.services, (budget = createBodyBudget(SEND_BODY_BUDGET, SEND_BODY_LIMIT)));
  return budget.hooks;
}

const sendRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // One budget for the send routes of this app: a batch and a send take from the same memory.
  const hooks = sendBodyBudgetHooks(app);
  app.post('/v1/send', { bodyLimit: SEND_BODY_LIMIT, ...hooks, schema: SEND_SCHEMA, config: { rateLimitClass: 'send', idempotent: true } }, async (request) =>
    ok(await app.services.send.accept(workspaceOf(request), request.body, keyDomainOf(request))),
  );
  // A top-level array, as Resend's batch route takes; its length (1–100) is the service's rule, for a clearer sentence.
  // One request of the `send` class for the rate limit, whatever the number of items.
  app.post('/v1/send/batch', { bodyLimit: SEND_BODY_LIMIT, ...hooks, schema: SEND_BATCH_SCHEMA, config: { rateLimitClass: 'send', idempotent: true } }, async (request) =>
    ok(await app.services.send.acceptBatch(workspaceOf(request), request.body, keyDomainOf(request))),
  );
};

export default sendRoutes;
