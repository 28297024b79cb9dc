/** Webhooks: endpoints and their API, the fan-out of events to them, and the dispatcher that posts them signed, with retries. */
export { default as webhookRoutes, WebhookBody } from './webhook-routes.js';
export { createWebhookService } from './webhook-service.js';
export { fanOutToWebhooks } from './webhook-fanout.js';
export { fanOutUpstreamEvent, type UpstreamEvent } from './upstream-event-fanout.js';
export { createWebhookDispatcher, type WebhookDispatcher } from './webhook-dispatcher.js';
export { endpointPreparer } from './webhook-endpoint.js';
export { nonPublicReason, systemResolver, type HostResolver } from './url-guard.js';
export { createWebhooksRepository } from './webhooks-repository.js';
export { createWebhookDeliveriesRepository } from './webhook-deliveries-repository.js';
