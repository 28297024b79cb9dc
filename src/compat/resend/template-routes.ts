import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../../http/api-guard.js';
import { TemplateVariableDeclaration } from '../../templates/index.js';
import { ListQuery } from './list-page.js';
import { createResendTemplates } from './resend-templates.js';

const IdParams = Type.Object({ id: Type.String() });
const Text = Type.Optional(Type.Union([Type.String(), Type.Null()]));
/** Types only: names, aliases, syntax and variables are checked by /v1's template service, which says why and where. */
const CONTENT = {
  alias: Text,
  subject: Text,
  text: Text,
  from: Text,
  reply_to: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()])),
  variables: Type.Optional(Type.Array(TemplateVariableDeclaration)),
};
const CreateBody = Type.Object({ name: Type.String(), html: Type.String(), ...CONTENT }, { additionalProperties: false });
const UpdateBody = Type.Object({ name: Type.Optional(Type.String()), html: Type.Optional(Type.String()), ...CONTENT }, { additionalProperties: false });

const templateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const templates = createResendTemplates(app.services);
  const byId = { schema: { params: IdParams } };

  app.post('/templates', { schema: { body: CreateBody } }, async (request, reply) => reply.code(201).send(await templates.create(workspaceOf(request), request.body)));
  app.get('/templates', { schema: { querystring: ListQuery } }, async (request) => templates.list(workspaceOf(request), request.query));
  app.get('/templates/:id', byId, async (request) => templates.get(workspaceOf(request), request.params.id));
  app.patch('/templates/:id', { schema: { params: IdParams, body: UpdateBody } }, async (request) => templates.update(workspaceOf(request), request.params.id, request.body));
  app.delete('/templates/:id', byId, async (request) => templates.remove(workspaceOf(request), request.params.id));
  app.post('/templates/:id/publish', byId, async (request) => templates.publish(workspaceOf(request), request.params.id));
  app.post('/templates/:id/duplicate', byId, async (request, reply) => reply.code(201).send(await templates.duplicate(workspaceOf(request), request.params.id)));
};

export default templateRoutes;
