import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ok } from '../http/envelope.js';
import { ApiKeyBody } from '../api-keys/index.js';
import { WorkspaceParams, workspaceIdOf } from './workspace-access.js';

const KeyParams = Type.Object({ workspaceId: Type.String(), id: Type.String() });

/** A workspace's API keys, through the same service as /v1/api-keys: everyone lists them; admins and developers create and delete. */
export const apiKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const apiKeys = app.services.apiKeys;

  app.get('/workspaces/:workspaceId/api-keys', { schema: { params: WorkspaceParams }, config: { ability: 'read' } }, async (request) =>
    ok(await apiKeys.list(workspaceIdOf(request))),
  );

  app.post('/workspaces/:workspaceId/api-keys', { schema: { params: WorkspaceParams, body: ApiKeyBody }, config: { ability: 'configure' } }, async (request, reply) =>
    reply.code(201).send(ok(await apiKeys.create(workspaceIdOf(request), request.body.name, request.body))),
  );

  // May delete the last full_access key too (unlike /v1): a signed-in member can always make another here.
  app.delete('/workspaces/:workspaceId/api-keys/:id', { schema: { params: KeyParams }, config: { ability: 'configure' } }, async (request) =>
    ok(await apiKeys.remove(workspaceIdOf(request), request.params.id)),
  );
};
