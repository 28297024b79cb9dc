import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';
import { API_KEY_PERMISSIONS } from '../services/api-key-service.js';

/** Also the dashboard's (dashboard/): one rule for both ways in. */
export const ApiKeyBody = Type.Object(
  {
    name: Type.String(),
    permission: Type.Optional(Type.String({ enum: [...API_KEY_PERMISSIONS] })),
    domain_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const IdParams = Type.Object({ id: Type.String() });

const apiKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const apiKeys = app.services.apiKeys;

  app.get('/v1/api-keys', async (request) => ok(await apiKeys.list(workspaceOf(request))));

  app.post('/v1/api-keys', { schema: { body: ApiKeyBody } }, async (request, reply) =>
    reply.code(201).send(ok(await apiKeys.create(workspaceOf(request), request.body.name, request.body))),
  );

  // The last full_access key stays: without one, nothing could manage this workspace through the API.
  app.delete('/v1/api-keys/:id', { schema: { params: IdParams } }, async (request) =>
    ok(await apiKeys.remove(workspaceOf(request), request.params.id, { keepFullAccess: true })),
  );
};

export default apiKeyRoutes;
