import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';

/** Also the dashboard's (dashboard/): one rule for both ways in. */
export const DomainBody = Type.Object({ domain: Type.String() }, { additionalProperties: false });
const IdParams = Type.Object({ id: Type.String() });

const domainRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const domains = app.services.domains;

  app.get('/v1/domains', async (request) => ok(await domains.list(workspaceOf(request))));

  app.post('/v1/domains', { schema: { body: DomainBody } }, async (request, reply) =>
    reply.code(201).send(ok(await domains.add(workspaceOf(request), request.body.domain))),
  );

  app.get('/v1/domains/:id', { schema: { params: IdParams } }, async (request) =>
    ok(await domains.get(workspaceOf(request), request.params.id)),
  );

  app.delete('/v1/domains/:id', { schema: { params: IdParams } }, async (request) =>
    ok(await domains.remove(workspaceOf(request), request.params.id)),
  );

  app.post('/v1/domains/:id/verify', { schema: { params: IdParams } }, async (request) =>
    ok(await domains.verify(workspaceOf(request), request.params.id)),
  );
};

export default domainRoutes;
