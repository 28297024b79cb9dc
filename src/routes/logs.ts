import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';

const LogsQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  type: Type.Optional(Type.Enum(['send', 'bounce', 'complaint'])),
  status: Type.Optional(Type.Enum(['sent', 'delivered', 'bounced', 'complained', 'suppressed', 'failed'])),
});

const logRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/send/logs', { schema: { querystring: LogsQuery } }, async (request, reply) => {
    const { entries, total } = await app.services.logs.list(workspaceOf(request), request.query);
    reply.header('X-Total-Count', total);
    return ok(entries);
  });

  app.get('/v1/send/stats', async (request) => ok(await app.services.logs.stats(workspaceOf(request))));
};

export default logRoutes;
