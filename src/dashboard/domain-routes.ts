import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ok } from '../http/envelope.js';
import { DomainBody, DomainPatch } from '../domains/index.js';
import { WorkspaceParams, workspaceIdOf } from './workspace-access.js';

const DomainParams = Type.Object({ workspaceId: Type.String(), id: Type.String() });

/**
 * A workspace's sending domains, through the same service as /v1/domains: everyone reads; admins and
 * developers add, verify, route and delete. The list carries each domain's route, which /v1's does not.
 */
export const domainRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const domains = app.services.domains;
  const base = '/workspaces/:workspaceId/domains';

  app.get(base, { schema: { params: WorkspaceParams }, config: { ability: 'read' } }, async (request) => ok(await domains.listWithRoutes(workspaceIdOf(request))));

  // Not a domain of the workspace's, but what every one's records are made of: MAILROOM_HOSTNAME, and whether DNS can use it.
  app.get('/workspaces/:workspaceId/record-host', { schema: { params: WorkspaceParams }, config: { ability: 'read' } }, async () => ok(domains.recordHost()));

  app.post(base, { schema: { params: WorkspaceParams, body: DomainBody }, config: { ability: 'configure' } }, async (request, reply) =>
    reply.code(201).send(ok(await domains.add(workspaceIdOf(request), request.body.domain))),
  );

  app.get(`${base}/:id`, { schema: { params: DomainParams }, config: { ability: 'read' } }, async (request) =>
    ok(await domains.get(workspaceIdOf(request), request.params.id)),
  );

  app.patch(`${base}/:id`, { schema: { params: DomainParams, body: DomainPatch }, config: { ability: 'configure' } }, async (request) =>
    ok(await domains.update(workspaceIdOf(request), request.params.id, request.body)),
  );

  app.post(`${base}/:id/verify`, { schema: { params: DomainParams }, config: { ability: 'configure' } }, async (request) =>
    ok(await domains.verify(workspaceIdOf(request), request.params.id)),
  );

  app.delete(`${base}/:id`, { schema: { params: DomainParams }, config: { ability: 'configure' } }, async (request) =>
    ok(await domains.remove(workspaceIdOf(request), request.params.id)),
  );
};
