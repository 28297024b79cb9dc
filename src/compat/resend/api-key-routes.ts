import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../../http/api-guard.js';
import { ApiKeyBody } from '../../api-keys/index.js';
import { ListQuery } from './list-page.js';
import { createResendApiKeys } from './resend-api-keys.js';

const IdParams = Type.Object({ id: Type.String() });

/** Resend's create body is /v1's: `name`, `permission`, `domain_id`. */
const apiKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const apiKeys = createResendApiKeys(app.services);

  app.get('/api-keys', { schema: { querystring: ListQuery } }, async (request) => apiKeys.list(workspaceOf(request), request.query));
  app.post('/api-keys', { schema: { body: ApiKeyBody } }, async (request, reply) =>
    reply.code(201).send(await apiKeys.create(workspaceOf(request), request.body.name, request.body)),
  );
  app.delete('/api-keys/:id', { schema: { params: IdParams } }, async (request) => apiKeys.remove(workspaceOf(request), request.params.id));
};

export default apiKeyRoutes;
