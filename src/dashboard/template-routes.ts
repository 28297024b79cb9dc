import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ok } from '../http/envelope.js';
import { ValidationError } from '../lib/errors.js';
import { TemplateCreateBody, TemplateRenderBody, TemplateUpdateBody } from '../templates/index.js';
import { framePolicy, inertMailHtml } from './mail-html-frame.js';
import { WorkspaceParams, workspaceIdOf } from './workspace-access.js';

const TemplateParams = Type.Object({ workspaceId: Type.String(), id: Type.String() });
/** The editor's list holds every template a workspace is likely to have; `total` says when there are more. */
const LIST_LIMIT = 500;
/** The preview frame's address: the variables as JSON, a published version's number, and whether remote images may load. */
const PreviewQuery = Type.Object(
  { variables: Type.Optional(Type.String()), version: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,8}$' })), remote_images: Type.Optional(Type.Literal('1')) },
  { additionalProperties: false },
);

function previewRequest(query: { variables?: string; version?: string }): { variables?: Record<string, unknown>; version?: number } {
  let variables: unknown;
  try {
    variables = query.variables === undefined ? undefined : JSON.parse(query.variables);
  } catch {
    throw new ValidationError('variables must be a JSON object');
  }
  if (variables !== undefined && (typeof variables !== 'object' || variables === null || Array.isArray(variables))) throw new ValidationError('variables must be a JSON object');
  return { ...(variables === undefined ? {} : { variables: variables as Record<string, unknown> }), ...(query.version === undefined ? {} : { version: Number(query.version) }) };
}

/**
 * A workspace's templates, through the same services as /v1/templates: everyone reads and previews
 * them; admins and developers create, edit, publish, duplicate and delete, as for domains. Besides
 * /v1's answers, a rendered preview as a document for the editor's sandboxed frame (mail-html-frame.ts).
 */
export const templateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const templates = app.services.templates;
  const rendering = app.services.templateRendering;
  const base = '/workspaces/:workspaceId/templates';
  const read = { ability: 'read' } as const;
  const configure = { ability: 'configure' } as const;
  const byId = { params: TemplateParams };

  app.get(base, { schema: { params: WorkspaceParams }, config: read }, async (request) => ok(await templates.list(workspaceIdOf(request), { limit: LIST_LIMIT, offset: 0 })));
  app.post(base, { schema: { params: WorkspaceParams, body: TemplateCreateBody }, config: configure }, async (request, reply) =>
    reply.code(201).send(ok(await templates.create(workspaceIdOf(request), request.body))),
  );
  app.get(`${base}/:id`, { schema: byId, config: read }, async (request) => ok(await templates.get(workspaceIdOf(request), request.params.id)));
  app.patch(`${base}/:id`, { schema: { ...byId, body: TemplateUpdateBody }, config: configure }, async (request) =>
    ok(await templates.update(workspaceIdOf(request), request.params.id, request.body)),
  );
  app.delete(`${base}/:id`, { schema: byId, config: configure }, async (request) => ok(await templates.remove(workspaceIdOf(request), request.params.id)));
  app.post(`${base}/:id/publish`, { schema: byId, config: configure }, async (request) => ok(await templates.publish(workspaceIdOf(request), request.params.id)));
  app.post(`${base}/:id/duplicate`, { schema: byId, config: configure }, async (request, reply) =>
    reply.code(201).send(ok(await templates.duplicate(workspaceIdOf(request), request.params.id))),
  );
  app.get(`${base}/:id/versions`, { schema: byId, config: read }, async (request) => ok(await templates.versions(workspaceIdOf(request), request.params.id)));
  app.post(`${base}/:id/render`, { schema: { ...byId, body: TemplateRenderBody }, config: read }, async (request) =>
    ok(await rendering.preview(workspaceIdOf(request), request.params.id, request.body)),
  );

  // As a message's HTML: helmet's other headers stay, its CSP gives way to the frame's, set before anything runs.
  app.get(
    `${base}/:id/preview`,
    { schema: { ...byId, querystring: PreviewQuery }, config: read, helmet: { contentSecurityPolicy: false }, onRequest: framePolicy },
    async (request, reply) => {
      const rendered = await rendering.preview(workspaceIdOf(request), request.params.id, previewRequest(request.query));
      return reply.type('text/html; charset=utf-8').header('cache-control', 'private, no-store').send(inertMailHtml(rendered.html));
    },
  );
};
