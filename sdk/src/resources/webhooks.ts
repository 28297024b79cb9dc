import type { Result } from '../result.js';
import { pathOf, type Transport } from '../transport.js';
import type { CreatedWebhook, CreateWebhookRequest, Deleted, RotatedWebhookSecret, Webhook, WebhookDelivery, WebhookDetail, WebhookEvent } from '../types.js';
import { verifyWebhook, type VerifyOptions, type WebhookHeaders, type WebhookVerificationError } from '../webhook-verification.js';

/** The workspace's webhook endpoints (/v1/webhooks), and `verify` for the receiving side. */
export class Webhooks {
  constructor(private readonly transport: Transport) {}

  list(): Promise<Result<Webhook[]>> {
    return this.transport.call({ method: 'GET', path: '/v1/webhooks' });
  }

  /** A new endpoint; its `secret` (`whsec_…`) is in this answer only (and at rotation). */
  create(params: CreateWebhookRequest): Promise<Result<CreatedWebhook>> {
    return this.transport.call({ method: 'POST', path: '/v1/webhooks', body: params });
  }

  /** The endpoint with its 20 latest deliveries, newest first. */
  get(webhookId: string): Promise<Result<WebhookDetail>> {
    return this.transport.call({ method: 'GET', path: pathOf`/v1/webhooks/${webhookId}` });
  }

  remove(webhookId: string): Promise<Result<Deleted>> {
    return this.transport.call({ method: 'DELETE', path: pathOf`/v1/webhooks/${webhookId}` });
  }

  /** A new secret, at once: every request from now on is signed with it. */
  rotateSecret(webhookId: string): Promise<Result<RotatedWebhookSecret>> {
    return this.transport.call({ method: 'POST', path: pathOf`/v1/webhooks/${webhookId}/rotate-secret` });
  }

  /** Posts a delivery again, now, with the same `webhook-id`. */
  retryDelivery(webhookId: string, deliveryId: string): Promise<Result<WebhookDelivery>> {
    return this.transport.call({ method: 'POST', path: pathOf`/v1/webhooks/${webhookId}/deliveries/${deliveryId}/retry` });
  }

  /**
   * For receivers: checks a request's Standard Webhooks signature and
   * timestamp against the endpoint's secret and answers its event. Pass the
   * raw body, before parsing it. Needs no API key: `new Mailroom('')` will do,
   * or call `verifyWebhook` directly.
   */
  verify(body: string | Uint8Array, headers: WebhookHeaders, secret: string, options?: VerifyOptions): Promise<Result<WebhookEvent, WebhookVerificationError>> {
    return verifyWebhook(body, headers, secret, options);
  }
}
