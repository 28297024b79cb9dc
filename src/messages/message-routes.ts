import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';

const IdParams = Type.Object({ id: Type.String() });

const messageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const messages = app.services.messages;

  app.get('/v1/messages/:id', { schema: { params: IdParams } }, async (request) => ok(await messages.get(workspaceOf(request), request.params.id)));

  // Before a scheduled send is due (issue 16, point 8); 409 once it is, or for a send that was never scheduled.
  app.post('/v1/messages/:id/cancel', { schema: { params: IdParams } }, async (request) =>
    ok(await app.services.scheduledSends.cancel(workspaceOf(request), request.params.id)),
  );

  app.get('/v1/messages/:id/content', { schema: { params: IdParams } }, async (request) =>
    ok(await messages.content(workspaceOf(request), request.params.id)),
  );
};

export default messageRoutes;
