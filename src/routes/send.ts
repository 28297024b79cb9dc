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
  },
  { additionalProperties: false },
);

const sendRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/v1/send', { schema: { body: SendBody }, config: { rateLimitClass: 'send', idempotent: true } }, async (request) =>
    ok(await app.services.send.accept(workspaceOf(request), request.body, keyDomainOf(request))),
  );
};

export default sendRoutes;
