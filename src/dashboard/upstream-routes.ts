import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ok } from '../http/envelope.js';
import { UpstreamBody, UpstreamPatch } from '../upstreams/index.js';
import { WorkspaceParams, workspaceIdOf } from './workspace-access.js';

const UpstreamParams = Type.Object({ workspaceId: Type.String(), id: Type.String() });

/**
 * A workspace's upstreams, through the same service as /v1/upstreams (credentials masked in every
 * answer): everyone reads them and their health; admins and developers add, change, test and delete.
 */
export const upstreamRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const upstreams = app.services.upstreams;
  const base = '/workspaces/:workspaceId/upstreams';

  app.get(base, { schema: { params: WorkspaceParams }, config: { ability: 'read' } }, async (request) => ok(await upstreams.list(workspaceIdOf(request))));

  app.post(base, { schema: { params: WorkspaceParams, body: UpstreamBody }, config: { ability: 'configure' } }, async (request, reply) =>
    reply.code(201).send(ok(await upstreams.create(workspaceIdOf(request), request.body))),
  );

  app.get(`${base}/:id`, { schema: { params: UpstreamParams }, config: { ability: 'read' } }, async (request) =>
    ok(await upstreams.get(workspaceIdOf(request), request.params.id)),
  );

  app.patch(`${base}/:id`, { schema: { params: UpstreamParams, body: UpstreamPatch }, config: { ability: 'configure' } }, async (request) =>
    ok(await upstreams.update(workspaceIdOf(request), request.params.id, request.body)),
  );

  // 409 while a domain routes through it, as /v1's.
  app.delete(`${base}/:id`, { schema: { params: UpstreamParams }, config: { ability: 'configure' } }, async (request) =>
    ok(await upstreams.remove(workspaceIdOf(request), request.params.id)),
  );

  // Connects out, so it is a change's ability rather than a read's: 200 whatever the upstream answered.
  app.post(`${base}/:id/test`, { schema: { params: UpstreamParams }, config: { ability: 'configure' } }, async (request) =>
    ok(await upstreams.test(workspaceIdOf(request), request.params.id)),
  );
};
