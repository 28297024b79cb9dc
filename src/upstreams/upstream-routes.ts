import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';
import { apiResponses, BODY_ERRORS, Deleted, Nullable, Timestamp } from '../openapi/index.js';
import { MAX_UPSTREAM_NAME_LENGTH, STARTTLS_POLICIES } from './upstream-input.js';

// Which fields each type takes, and their forms, are checked by the service, which can say why.
const FIELDS = {
  name: Type.String({ maxLength: MAX_UPSTREAM_NAME_LENGTH }),
  type: Type.String({ enum: ['smtp', 'ses'] }),
  url: Type.String({ maxLength: 2048, description: 'smtp: smtp://user:password@relay.example.com:587, or smtps:// for TLS from the start.' }),
  starttls: Type.String({ enum: [...STARTTLS_POLICIES], description: 'smtp: STARTTLS when offered (default), always, or never.' }),
  region: Type.String({ maxLength: 64 }),
  access_key_id: Type.String({ maxLength: 128 }),
  secret_access_key: Type.String({ maxLength: 256 }),
  configuration_set: Nullable(Type.String({ maxLength: 64 })),
  endpoint: Nullable(Type.String({ maxLength: 2048 })),
};
const optional = <T extends Record<string, import('typebox').TSchema>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).map(([key, schema]) => [key, Type.Optional(schema)])) as { [K in keyof T]: import('typebox').TOptional<T[K]> };
export const UpstreamBody = Type.Object({ ...optional(FIELDS), name: FIELDS.name, type: FIELDS.type }, { additionalProperties: false });
export const UpstreamPatch = Type.Object(optional(FIELDS), { additionalProperties: false });
const IdParams = Type.Object({ id: Type.String() });

const Upstream = Type.Object(
  {
    id: Type.String({ description: 'ups_…' }),
    name: Type.String(),
    type: Type.String({ enum: ['smtp', 'ses'] }),
    url: Type.Optional(Type.String({ description: 'smtp: the URL, its password masked.' })),
    starttls: Type.Optional(Type.String({ enum: [...STARTTLS_POLICIES] })),
    region: Type.Optional(Type.String()),
    access_key_id: Type.Optional(Type.String({ description: 'ses: masked.' })),
    configuration_set: Type.Optional(Nullable(Type.String())),
    endpoint: Type.Optional(Nullable(Type.String())),
    health: Type.String({ enum: ['healthy', 'degraded', 'down'] }),
    last_error: Nullable(Type.String()),
    last_error_at: Nullable(Timestamp),
    last_hour: Type.Object(
      { attempts: Type.Integer(), accepted: Type.Integer(), temporary: Type.Integer(), permanent: Type.Integer(), failed: Type.Integer() },
      { additionalProperties: false, description: 'Attempts through it in the last hour, by outcome (a failed-over try counts as temporary).' },
    ),
    domains: Type.Array(Type.Object({ id: Type.String(), domain: Type.String() }, { additionalProperties: false }), { description: 'The domains routed through it.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);
const TestResult = Type.Object({ ok: Type.Boolean(), detail: Type.String(), duration_ms: Type.Integer() }, { additionalProperties: false });
const TAGS = ['Upstreams'];

const upstreamRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const upstreams = app.services.upstreams;

  app.get('/v1/upstreams', { schema: { operationId: 'listUpstreams', summary: "The workspace's upstreams, with their health", tags: TAGS, response: apiResponses({ 200: Type.Array(Upstream) }) } }, async (request) =>
    ok(await upstreams.list(workspaceOf(request))),
  );

  app.post(
    '/v1/upstreams',
    { schema: { operationId: 'createUpstream', summary: 'Add an SMTP relay or an SES account', tags: TAGS, body: UpstreamBody, response: apiResponses({ 201: Upstream }, { errors: [409, ...BODY_ERRORS] }) } },
    async (request, reply) => reply.code(201).send(ok(await upstreams.create(workspaceOf(request), request.body))),
  );

  app.get('/v1/upstreams/:id', { schema: { operationId: 'getUpstream', summary: 'An upstream and its health', tags: TAGS, params: IdParams, response: apiResponses({ 200: Upstream }, { errors: [404] }) } }, async (request) =>
    ok(await upstreams.get(workspaceOf(request), request.params.id)),
  );

  app.patch(
    '/v1/upstreams/:id',
    { schema: { operationId: 'updateUpstream', summary: 'Change an upstream', tags: TAGS, params: IdParams, body: UpstreamPatch, response: apiResponses({ 200: Upstream }, { errors: [404, 409, ...BODY_ERRORS] }) } },
    async (request) => ok(await upstreams.update(workspaceOf(request), request.params.id, request.body)),
  );

  app.delete(
    '/v1/upstreams/:id',
    { schema: { operationId: 'deleteUpstream', summary: 'Delete an upstream no domain routes through', tags: TAGS, params: IdParams, response: apiResponses({ 200: Deleted('id') }, { errors: [404, 409, ...BODY_ERRORS] }) } },
    async (request) => ok(await upstreams.remove(workspaceOf(request), request.params.id)),
  );

  app.post(
    '/v1/upstreams/:id/test',
    { schema: { operationId: 'testUpstream', summary: 'Connect and authenticate, sending nothing', tags: TAGS, params: IdParams, response: apiResponses({ 200: TestResult }, { errors: [404, ...BODY_ERRORS] }) } },
    async (request) => ok(await upstreams.test(workspaceOf(request), request.params.id)),
  );
};

export default upstreamRoutes;
