import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';
import { PAGING } from '../http/validation.js';
import type { TSchema } from 'typebox';
import { type ErrorStatus, apiResponses, BODY_ERRORS, Deleted, Nullable, Timestamp, TOTAL_COUNT } from '../openapi/index.js';
import { MAX_NAME_LENGTH } from './template-service.js';
import { MAX_VARIABLES, VARIABLE_TYPES } from './template-variables.js';

// Names, aliases, sizes, syntax and the variables' keys are checked by the service, which can say why and where.
/** A declared variable as a create or an edit gives it (Resend's shape too, under /compat/resend). */
export const TemplateVariableDeclaration = Type.Object(
  {
    key: Type.String(),
    type: Type.Enum([...VARIABLE_TYPES]),
    fallback_value: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Null()])),
  },
  { additionalProperties: false },
);
const NullableText = Type.Optional(Nullable(Type.String()));
const CONTENT_FIELDS = {
  subject: NullableText,
  text: NullableText,
  from: NullableText,
  reply_to: NullableText,
  variables: Type.Optional(Type.Array(TemplateVariableDeclaration, { maxItems: MAX_VARIABLES })),
  layout_id: Type.Optional(Nullable(Type.String({ description: 'A layout (kind "layout") by id or alias: its {{{content}}} holds this template.' }))),
};
export const TemplateCreateBody = Type.Object(
  {
    name: Type.String({ maxLength: MAX_NAME_LENGTH }),
    alias: NullableText,
    kind: Type.Optional(Type.Enum(['template', 'layout'])),
    html: Type.String(),
    ...CONTENT_FIELDS,
  },
  { additionalProperties: false },
);
export const TemplateUpdateBody = Type.Object(
  { name: Type.Optional(Type.String({ maxLength: MAX_NAME_LENGTH })), alias: NullableText, html: Type.Optional(Type.String()), ...CONTENT_FIELDS },
  { additionalProperties: false },
);
/** Values are checked against the template's declaration by the service, so that one 400 names every problem. */
export const TemplateVariables = Type.Record(Type.String(), Type.Unknown());
export const TemplateRenderBody = Type.Object(
  { variables: Type.Optional(TemplateVariables), version: Type.Optional(Type.Integer({ minimum: 1, description: 'A published version; by default the draft, else the published one.' })) },
  { additionalProperties: false },
);
const IdParams = Type.Object({ id: Type.String({ description: 'tpl_… or the alias' }) });
const ListQuery = Type.Object(PAGING, { additionalProperties: false });

const Declared = Type.Array(Type.Object({ key: Type.String(), type: Type.Enum([...VARIABLE_TYPES]), fallback_value: Nullable(Type.Union([Type.String(), Type.Number()])) }, { additionalProperties: false }));
const CONTENT_VIEW = {
  subject: Nullable(Type.String()),
  html: Type.String(),
  text: Nullable(Type.String()),
  from: Nullable(Type.String()),
  reply_to: Nullable(Type.String()),
  variables: Declared,
  layout_id: Nullable(Type.String()),
};
const Template = Type.Object(
  {
    id: Type.String({ description: 'tpl_…' }),
    kind: Type.Enum(['template', 'layout']),
    name: Type.String(),
    alias: Nullable(Type.String()),
    status: Type.Enum(['draft', 'published']),
    published_at: Nullable(Timestamp),
    has_unpublished_versions: Type.Boolean(),
    current_version_id: Type.String({ description: 'tplv_…: the draft if there is one, else the published version; its content is shown.' }),
    ...CONTENT_VIEW,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);
const TemplateVersion = Type.Object({ id: Type.String({ description: 'tplv_…' }), version: Type.Integer(), ...CONTENT_VIEW, published_at: Timestamp }, { additionalProperties: false });
const Rendered = Type.Object({ subject: Nullable(Type.String()), html: Type.String(), text: Type.String() }, { additionalProperties: false });
const TAGS = ['Templates'];

const templateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const templates = app.services.templates;
  const rendering = app.services.templateRendering;
  const one = (operationId: string, summary: string, data: TSchema = Template, errors: ErrorStatus[] = [404]) =>
    ({ operationId, summary, tags: TAGS, params: IdParams, response: apiResponses({ 200: data }, { errors }) });

  app.post(
    '/v1/templates',
    { schema: { operationId: 'createTemplate', summary: 'Create a template (a draft) or a layout', tags: TAGS, body: TemplateCreateBody, response: apiResponses({ 201: Template }, { errors: [409, ...BODY_ERRORS] }) } },
    async (request, reply) => reply.code(201).send(ok(await templates.create(workspaceOf(request), request.body))),
  );

  app.get(
    '/v1/templates',
    { schema: { operationId: 'listTemplates', summary: 'List the templates, newest first', tags: TAGS, querystring: ListQuery, response: apiResponses({ 200: Type.Array(Template) }, { successHeaders: TOTAL_COUNT }) } },
    async (request, reply) => {
      const { templates: page, total } = await templates.list(workspaceOf(request), request.query);
      reply.header('X-Total-Count', total);
      return ok(page);
    },
  );

  app.get('/v1/templates/:id', { schema: one('getTemplate', 'A template and its current content') }, async (request) => ok(await templates.get(workspaceOf(request), request.params.id)));

  app.patch(
    '/v1/templates/:id',
    { schema: { ...one('updateTemplate', 'Edit the draft (made from the published version when there is none)', Template, [404, 409, ...BODY_ERRORS]), body: TemplateUpdateBody } },
    async (request) => ok(await templates.update(workspaceOf(request), request.params.id, request.body)),
  );

  app.delete('/v1/templates/:id', { schema: one('deleteTemplate', 'Delete a template and its versions', Deleted('id'), [404, ...BODY_ERRORS]) }, async (request) =>
    ok(await templates.remove(workspaceOf(request), request.params.id)),
  );

  app.post('/v1/templates/:id/publish', { schema: one('publishTemplate', 'Publish the draft as the next version', Template, [404, ...BODY_ERRORS]) }, async (request) =>
    ok(await templates.publish(workspaceOf(request), request.params.id)),
  );

  app.post(
    '/v1/templates/:id/duplicate',
    { schema: { ...one('duplicateTemplate', 'Copy a template as a new draft', Template, [404, ...BODY_ERRORS]), response: apiResponses({ 201: Template }, { errors: [404, ...BODY_ERRORS] }) } },
    async (request, reply) => reply.code(201).send(ok(await templates.duplicate(workspaceOf(request), request.params.id))),
  );

  app.get('/v1/templates/:id/versions', { schema: one('listTemplateVersions', 'Every published version, newest first', Type.Array(TemplateVersion)) }, async (request) =>
    ok(await templates.versions(workspaceOf(request), request.params.id)),
  );

  app.post(
    '/v1/templates/:id/render',
    { schema: { ...one('renderTemplate', 'Render a version with variables, as a send would', Rendered, [404, ...BODY_ERRORS]), body: TemplateRenderBody } },
    async (request) => ok(await rendering.preview(workspaceOf(request), request.params.id, request.body)),
  );
};

export default templateRoutes;
