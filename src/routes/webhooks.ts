import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../services/webhook-service.js';

// `url` (scheme, host, SSRF) and `events` (known, non-empty) are checked by the service, which can say why.
export const WebhookBody = Type.Object(
  { url: Type.String({ maxLength: MAX_WEBHOOK_URL_LENGTH }), events: Type.Optional(Type.Array(Type.String())) },
  { additionalProperties: false },
);
const IdParams = Type.Object({ id: Type.String() });
const DeliveryParams = Type.Object({ id: Type.String(), delivery_id: Type.String() });

const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = app.services.webhooks;

  app.get('/v1/webhooks', async (request) => ok(await webhooks.list(workspaceOf(request))));

  app.post('/v1/webhooks', { schema: { body: WebhookBody } }, async (request, reply) =>
    reply.code(201).send(ok(await webhooks.create(workspaceOf(request), request.body))),
  );

  app.get('/v1/webhooks/:id', { schema: { params: IdParams } }, async (request) =>
    ok(await webhooks.get(workspaceOf(request), request.params.id)),
  );

  app.delete('/v1/webhooks/:id', { schema: { params: IdParams } }, async (request) =>
    ok(await webhooks.remove(workspaceOf(request), request.params.id)),
  );

  app.post('/v1/webhooks/:id/rotate-secret', { schema: { params: IdParams } }, async (request) =>
    ok(await webhooks.rotateSecret(workspaceOf(request), request.params.id)),
  );

  app.post('/v1/webhooks/:id/deliveries/:delivery_id/retry', { schema: { params: DeliveryParams } }, async (request) =>
    ok(await webhooks.retryDelivery(workspaceOf(request), request.params.id, request.params.delivery_id)),
  );
};

export default webhookRoutes;
