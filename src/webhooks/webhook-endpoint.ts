import type { Config } from '../config.js';
import { webhookSigningSecret } from './webhook-service.js';
import type { PreparedEndpoint } from './webhook-dispatcher.js';
import { resolvePublicTarget, type HostResolver } from './url-guard.js';
import { webhookHeaders } from './webhook-signature.js';

/**
 * Readies an endpoint for one attempt: its URL vetted again by the SSRF rule
 * (DNS may answer differently than at creation) and the addresses to connect
 * to pinned, its secret opened for signing. Throws (recorded as the
 * attempt's error) when either fails.
 */
export function endpointPreparer(config: Pick<Config, 'secretKey' | 'webhooks'>, resolveHost?: HostResolver) {
  return async (endpoint: { url: string; secret: string }): Promise<PreparedEndpoint> => {
    const target = await resolvePublicTarget(endpoint.url, config.webhooks.allowPrivate, resolveHost);
    const secret = webhookSigningSecret(endpoint, config);
    return {
      url: target.url,
      addresses: target.addresses,
      headers: (id, timestamp, body) => ({ ...webhookHeaders(secret, id, timestamp, body) }),
    };
  };
}
