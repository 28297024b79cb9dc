import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { keyDomainOf, workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';

const OptionalText = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const OptionalAddresses = Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()]));

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
  },
  { additionalProperties: false },
);

/** POST /v1/send/batch: an array of sends; a schema error names the item (`[3].to must be an array`). */
export const SendBatchBody = Type.Array(SendBody);

const sendRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/v1/send', { schema: { body: SendBody }, config: { rateLimitClass: 'send', idempotent: true } }, async (request) =>
    ok(await app.services.send.accept(workspaceOf(request), request.body, keyDomainOf(request))),
  );
  // A top-level array, as Resend's batch route takes; its length (1–100) is the service's rule, for a clearer sentence.
  // One request of the `send` class for the rate limit, whatever the number of items.
  app.post('/v1/send/batch', { schema: { body: SendBatchBody }, config: { rateLimitClass: 'send', idempotent: true } }, async (request) =>
    ok(await app.services.send.acceptBatch(workspaceOf(request), request.body, keyDomainOf(request))),
  );
};

export default sendRoutes;
