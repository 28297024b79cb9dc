import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';
import { apiResponses, BODY_ERRORS, Deleted, Nullable, Timestamp } from '../openapi/index.js';
import { MAX_WEBHOOK_URL_LENGTH, SUBSCRIBABLE_EVENT_TYPES } from './webhook-service.js';

// `url` (scheme, host, SSRF) and `events` (known, non-empty) are checked by the service, which can say why.
export const WebhookBody = Type.Object(
  { url: Type.String({ maxLength: MAX_WEBHOOK_URL_LENGTH }), events: Type.Optional(Type.Array(Type.String())) },
  { additionalProperties: false },
);
const IdParams = Type.Object({ id: Type.String() });
const DeliveryParams = Type.Object({ id: Type.String(), delivery_id: Type.String() });

const Events = Type.Array(Type.String({ enum: [...SUBSCRIBABLE_EVENT_TYPES] }));
const ENDPOINT_FIELDS = { id: Type.String({ description: 'wh_…' }), url: Type.String(), events: Events, created_at: Timestamp };
const VIEW_FIELDS = {
  ...ENDPOINT_FIELDS,
  masked_secret: Nullable(Type.String({ description: 'Null when the stored secret cannot be read with this MAILROOM_SECRET_KEY.' })),
  updated_at: Timestamp,
};
const Webhook = Type.Object(VIEW_FIELDS, { additionalProperties: false });
const WebhookCreated = Type.Object({ ...ENDPOINT_FIELDS, secret: Type.String({ description: 'whsec_…: shown only here and at rotation.' }) }, { additionalProperties: false });
const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'whd_…; also the webhook-id header of every post of it.' }),
    event_id: Type.String(),
    event_type: Type.String(),
    state: Type.String({ enum: ['pending', 'delivered', 'failed'] }),
    attempts: Type.Integer(),
    last_status: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);
const WebhookDetail = Type.Object({ ...VIEW_FIELDS, deliveries: Type.Array(WebhookDelivery) }, { additionalProperties: false });
const RotatedSecret = Type.Object({ id: Type.String(), secret: Type.String() }, { additionalProperties: false });
const TAGS = ['Webhooks'];

const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = app.services.webhooks;

  app.get('/v1/webhooks', { schema: { operationId: 'listWebhooks', summary: 'List the webhook endpoints', tags: TAGS, response: apiResponses({ 200: Type.Array(Webhook) }) } }, async (request) => ok(await webhooks.list(workspaceOf(request))));

  app.post(
    '/v1/webhooks',
    { schema: { operationId: 'createWebhook', summary: 'Add a webhook endpoint', tags: TAGS, body: WebhookBody, response: apiResponses({ 201: WebhookCreated }, { errors: BODY_ERRORS }) } },
    async (request, reply) =>
    reply.code(201).send(ok(await webhooks.create(workspaceOf(request), request.body))),
  );

  app.get(
    '/v1/webhooks/:id',
    { schema: { operationId: 'getWebhook', summary: 'An endpoint and its latest deliveries', tags: TAGS, params: IdParams, response: apiResponses({ 200: WebhookDetail }, { errors: [404] }) } },
    async (request) =>
    ok(await webhooks.get(workspaceOf(request), request.params.id)),
  );

  app.delete(
    '/v1/webhooks/:id',
    { schema: { operationId: 'deleteWebhook', summary: 'Delete an endpoint', tags: TAGS, params: IdParams, response: apiResponses({ 200: Deleted('id') }, { errors: [404, ...BODY_ERRORS] }) } },
    async (request) =>
    ok(await webhooks.remove(workspaceOf(request), request.params.id)),
  );

  app.post(
    '/v1/webhooks/:id/rotate-secret',
    { schema: { operationId: 'rotateWebhookSecret', summary: "Replace an endpoint's secret", tags: TAGS, params: IdParams, response: apiResponses({ 200: RotatedSecret }, { errors: [404, ...BODY_ERRORS] }) } },
    async (request) =>
    ok(await webhooks.rotateSecret(workspaceOf(request), request.params.id)),
  );

  app.post(
    '/v1/webhooks/:id/deliveries/:delivery_id/retry',
    {
      schema: {
        operationId: 'retryWebhookDelivery',
        summary: 'Post a delivery again, now',
        tags: TAGS,
        params: DeliveryParams,
        response: apiResponses({ 200: WebhookDelivery }, { errors: [404, ...BODY_ERRORS] }),
      },
    },
    async (request) =>
    ok(await webhooks.retryDelivery(workspaceOf(request), request.params.id, request.params.delivery_id)),
  );
};

export default webhookRoutes;
