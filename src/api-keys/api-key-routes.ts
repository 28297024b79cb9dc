import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';
import { apiResponses, BODY_ERRORS, Deleted, Nullable, Timestamp } from '../openapi/index.js';
import { API_KEY_PERMISSIONS } from './api-key-service.js';

/** Also the dashboard's (dashboard/): one rule for both ways in. */
export const ApiKeyBody = Type.Object(
  {
    name: Type.String(),
    permission: Type.Optional(Type.String({ enum: [...API_KEY_PERMISSIONS] })),
    domain_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const IdParams = Type.Object({ id: Type.String() });

const KEY_FIELDS = {
  id: Type.String({ description: 'key_…' }),
  name: Type.String(),
  masked_key: Type.String(),
  created_at: Timestamp,
  permission: Type.String({ enum: [...API_KEY_PERMISSIONS] }),
  domain_id: Nullable(Type.String({ description: 'The one domain a sending_access key may send from.' })),
};
const ApiKeyListed = Type.Object({ ...KEY_FIELDS, last_used_at: Nullable(Timestamp) }, { additionalProperties: false });
const ApiKeyCreated = Type.Object({ ...KEY_FIELDS, key: Type.String({ description: 'The full key: shown only in this answer.' }) }, { additionalProperties: false });
const TAGS = ['API keys'];

const apiKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const apiKeys = app.services.apiKeys;

  app.get('/v1/api-keys', { schema: { operationId: 'listApiKeys', summary: 'List the API keys, masked', tags: TAGS, response: apiResponses({ 200: Type.Array(ApiKeyListed) }) } }, async (request) => ok(await apiKeys.list(workspaceOf(request))));

  app.post(
    '/v1/api-keys',
    { schema: { operationId: 'createApiKey', summary: 'Create an API key', tags: TAGS, body: ApiKeyBody, response: apiResponses({ 201: ApiKeyCreated }, { errors: BODY_ERRORS }) } },
    async (request, reply) =>
    reply.code(201).send(ok(await apiKeys.create(workspaceOf(request), request.body.name, request.body))),
  );

  // The last full_access key stays: without one, nothing could manage this workspace through the API.
  app.delete(
    '/v1/api-keys/:id',
    { schema: { operationId: 'deleteApiKey', summary: 'Delete an API key', tags: TAGS, params: IdParams, response: apiResponses({ 200: Deleted('id') }, { errors: [404, 409, ...BODY_ERRORS] }) } },
    async (request) =>
    ok(await apiKeys.remove(workspaceOf(request), request.params.id, { keepFullAccess: true })),
  );
};

export default apiKeyRoutes;
