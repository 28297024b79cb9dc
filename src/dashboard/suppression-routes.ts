import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ok } from '../http/envelope.js';
import { SuppressionBody, SuppressionsQuery } from '../suppressions/index.js';
import { WorkspaceParams, workspaceIdOf } from './workspace-access.js';

const EmailParams = Type.Object({ workspaceId: Type.String(), email: Type.String() });

/** A workspace's suppression list, through the same service as /v1/suppressions: everyone reads; admins and developers add and remove. */
export const suppressionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const suppressions = app.services.suppressions;
  const base = '/workspaces/:workspaceId/suppressions';

  app.get(base, { schema: { params: WorkspaceParams, querystring: SuppressionsQuery }, config: { ability: 'read' } }, async (request) => {
    const { entries, total } = await suppressions.list(workspaceIdOf(request), request.query);
    return ok({ entries, total });
  });

  app.get(`${base}/:email`, { schema: { params: EmailParams }, config: { ability: 'read' } }, async (request) =>
    ok(await suppressions.get(workspaceIdOf(request), request.params.email)),
  );

  app.post(base, { schema: { params: WorkspaceParams, body: SuppressionBody }, config: { ability: 'configure' } }, async (request, reply) => {
    const { entry, created } = await suppressions.add(workspaceIdOf(request), request.body);
    return reply.code(created ? 201 : 200).send(ok(entry));
  });

  app.delete(`${base}/:email`, { schema: { params: EmailParams }, config: { ability: 'configure' } }, async (request) =>
    ok(await suppressions.remove(workspaceIdOf(request), request.params.email)),
  );
};
