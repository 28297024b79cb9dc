import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';
import { PAGING } from '../http/validation.js';
import { apiResponses, BODY_ERRORS, Deleted, Nullable, Timestamp, TOTAL_COUNT } from '../openapi/index.js';
import { SUPPRESSION_REASONS } from './suppression-service.js';

/** Also the dashboard's (dashboard/): one rule for both ways in. */
export const SuppressionsQuery = Type.Object(
  {
    ...PAGING,
    reason: Type.Optional(Type.Enum([...SUPPRESSION_REASONS])),
  },
  { additionalProperties: false },
);
// `reason` is checked by the service, which can say why only `manual` is accepted here.
/** Also the dashboard's (dashboard/): one rule for both ways in. */
export const SuppressionBody = Type.Object({ email: Type.String(), reason: Type.Optional(Type.String()) }, { additionalProperties: false });
const EmailParams = Type.Object({ email: Type.String() });

const Suppression = Type.Object(
  { email: Type.String(), reason: Type.String({ enum: [...SUPPRESSION_REASONS] }), source_message_id: Nullable(Type.String()), created_at: Timestamp },
  { additionalProperties: false },
);
const TAGS = ['Suppressions'];

const suppressionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const suppressions = app.services.suppressions;

  app.get(
    '/v1/suppressions',
    {
      schema: {
        operationId: 'listSuppressions',
        summary: 'List the suppression list, newest first',
        tags: TAGS,
        querystring: SuppressionsQuery,
        response: apiResponses({ 200: Type.Array(Suppression) }, { successHeaders: TOTAL_COUNT }),
      },
    },
    async (request, reply) => {
    const { entries, total } = await suppressions.list(workspaceOf(request), request.query);
    reply.header('X-Total-Count', total);
    return ok(entries);
  });

  // 201 when the address was added now, 200 with the entry unchanged when it was already listed.
  app.post(
    '/v1/suppressions',
    {
      schema: {
        operationId: 'createSuppression',
        summary: 'Add an address to the suppression list',
        tags: TAGS,
        body: SuppressionBody,
        response: apiResponses({ 200: Suppression, 201: Suppression }, { errors: BODY_ERRORS }),
      },
    },
    async (request, reply) => {
    const { entry, created } = await suppressions.add(workspaceOf(request), request.body);
    return reply.code(created ? 201 : 200).send(ok(entry));
  });

  app.get('/v1/suppressions/:email', { schema: { operationId: 'getSuppression', summary: 'Look an address up', tags: TAGS, params: EmailParams, response: apiResponses({ 200: Suppression }, { errors: [404] }) } }, async (request) =>
    ok(await suppressions.get(workspaceOf(request), request.params.email)),
  );

  app.delete(
    '/v1/suppressions/:email',
    {
      schema: {
        operationId: 'deleteSuppression',
        summary: 'Remove an address from the suppression list',
        tags: TAGS,
        params: EmailParams,
        response: apiResponses({ 200: Deleted('email') }, { errors: [404, ...BODY_ERRORS] }),
      },
    },
    async (request) =>
    ok(await suppressions.remove(workspaceOf(request), request.params.email)),
  );
};

export default suppressionRoutes;
