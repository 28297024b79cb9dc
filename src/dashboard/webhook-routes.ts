import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ok } from '../http/envelope.js';
import { WebhookBody } from '../webhooks/index.js';
import { WorkspaceParams, workspaceIdOf } from './workspace-access.js';

const WebhookParams = Type.Object({ workspaceId: Type.String(), id: Type.String() });
const DeliveryParams = Type.Object({ workspaceId: Type.String(), id: Type.String(), deliveryId: Type.String() });

/**
 * A workspace's webhook endpoints, through the same service as /v1/webhooks:
 * everyone reads them and their deliveries; admins and developers create,
 * delete, rotate secrets, retry deliveries and send test events.
 */
export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = app.services.webhooks;
  const base = '/workspaces/:workspaceId/webhooks';

  app.get(base, { schema: { params: WorkspaceParams }, config: { ability: 'read' } }, async (request) =>
    ok(await webhooks.listWithSuccessRates(workspaceIdOf(request))),
  );

  app.post(base, { schema: { params: WorkspaceParams, body: WebhookBody }, config: { ability: 'configure' } }, async (request, reply) =>
    reply.code(201).send(ok(await webhooks.create(workspaceIdOf(request), request.body))),
  );

  app.get(`${base}/:id`, { schema: { params: WebhookParams }, config: { ability: 'read' } }, async (request) =>
    ok(await webhooks.getWithSchedule(workspaceIdOf(request), request.params.id)),
  );

  app.delete(`${base}/:id`, { schema: { params: WebhookParams }, config: { ability: 'configure' } }, async (request) =>
    ok(await webhooks.remove(workspaceIdOf(request), request.params.id)),
  );

  app.post(`${base}/:id/rotate-secret`, { schema: { params: WebhookParams }, config: { ability: 'configure' } }, async (request) =>
    ok(await webhooks.rotateSecret(workspaceIdOf(request), request.params.id)),
  );

  // 202: the test event is queued; the dispatcher posts it within a poll.
  app.post(`${base}/:id/test`, { schema: { params: WebhookParams }, config: { ability: 'configure' } }, async (request, reply) =>
    reply.code(202).send(ok(await webhooks.sendTest(workspaceIdOf(request), request.params.id))),
  );

  app.post(`${base}/:id/deliveries/:deliveryId/retry`, { schema: { params: DeliveryParams }, config: { ability: 'configure' } }, async (request) =>
    ok(await webhooks.retryDelivery(workspaceIdOf(request), request.params.id, request.params.deliveryId)),
  );
};
