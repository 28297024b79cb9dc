import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';

const OptionalText = Type.Optional(Type.Union([Type.String(), Type.Null()]));

// Types only: recipient count, address syntax and header safety are the send service's rules.
// Also the dashboard's (dashboard/): one rule for both ways in.
export const SendBody = Type.Object(
  {
    to: Type.Array(Type.String()),
    from_email: Type.String(),
    subject: Type.String(),
    html: OptionalText,
    text: OptionalText,
    reply_to: OptionalText,
  },
  { additionalProperties: false },
);

const sendRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/v1/send', { schema: { body: SendBody }, config: { rateLimitClass: 'send' } }, async (request) =>
    ok(await app.services.send.accept(workspaceOf(request), request.body)),
  );
};

export default sendRoutes;
