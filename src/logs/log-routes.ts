import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { okJson } from '../http/envelope.js';

// SPEC.md §4.2's parameters as they were, and the search filters; `since`/`until` are checked by the
// service (parseRange), which can say what form they take. Anything else answers 400, naming it.
// Also the dashboard's (dashboard/): one rule for both ways in.
export const LogsQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
    offset: Type.Integer({ minimum: 0, default: 0 }),
    before: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    type: Type.Optional(Type.Enum(['send', 'bounce', 'complaint'])),
    status: Type.Optional(Type.Enum(['sent', 'delivered', 'bounced', 'complained', 'suppressed', 'failed'])),
    message_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    to: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    from_email: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    since: Type.Optional(Type.String({ maxLength: 64 })),
    until: Type.Optional(Type.String({ maxLength: 64 })),
    // `name:value`, checked by the service (sending/tags.ts).
    tag: Type.Optional(Type.String({ maxLength: 600 })),
  },
  { additionalProperties: false },
);

const logRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/send/logs', { schema: { querystring: LogsQuery } }, async (request, reply) => {
    const { entries, total } = await app.services.logs.list(workspaceOf(request), request.query);
    reply.header('X-Total-Count', total.count);
    reply.header('X-Total-Count-Relation', total.relation);
    return reply.type('application/json').send(okJson(entries));
  });
};

export default logRoutes;
