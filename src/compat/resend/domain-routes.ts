import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../../http/api-guard.js';
import { ListQuery } from './list-page.js';
import { createResendDomains } from './resend-domains.js';

const IdParams = Type.Object({ id: Type.String() });
/** Resend's other options (region, tracking, custom return path, TLS) have no counterpart here and are refused by name. */
const DomainBody = Type.Object({ name: Type.String() }, { additionalProperties: false });
/** Resend's update; its `tls` and `capabilities` have no counterpart here and are refused by name. */
const DomainUpdate = Type.Object(
  {
    open_tracking: Type.Optional(Type.Boolean()),
    click_tracking: Type.Optional(Type.Boolean()),
    tracking_subdomain: Type.Optional(Type.Union([Type.String({ maxLength: 190 }), Type.Null()])),
  },
  { additionalProperties: false },
);

const domainRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const domains = createResendDomains(app.services);

  app.get('/domains', { schema: { querystring: ListQuery } }, async (request) => domains.list(workspaceOf(request), request.query));
  app.post('/domains', { schema: { body: DomainBody } }, async (request, reply) =>
    reply.code(201).send(await domains.create(workspaceOf(request), request.body.name)),
  );
  app.get('/domains/:id', { schema: { params: IdParams } }, async (request) => domains.get(workspaceOf(request), request.params.id));
  app.patch('/domains/:id', { schema: { params: IdParams, body: DomainUpdate } }, async (request) => domains.update(workspaceOf(request), request.params.id, request.body ?? {}));
  app.delete('/domains/:id', { schema: { params: IdParams } }, async (request) => domains.remove(workspaceOf(request), request.params.id));
  app.post('/domains/:id/verify', { schema: { params: IdParams } }, async (request) => domains.verify(workspaceOf(request), request.params.id));
};

export default domainRoutes;
