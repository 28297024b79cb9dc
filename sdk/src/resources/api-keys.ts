import type { Result } from '../result.js';
import { pathOf, type Transport } from '../transport.js';
import type { ApiKey, CreateApiKeyRequest, CreatedApiKey, Deleted } from '../types.js';

/** The workspace's API keys (/v1/api-keys). */
export class ApiKeys {
  constructor(private readonly transport: Transport) {}

  /** Every key, masked. */
  list(): Promise<Result<ApiKey[]>> {
    return this.transport.call({ method: 'GET', path: '/v1/api-keys' });
  }

  /** A new key; its full value (`key`) is in this answer only. */
  create(params: CreateApiKeyRequest): Promise<Result<CreatedApiKey>> {
    return this.transport.call({ method: 'POST', path: '/v1/api-keys', body: params });
  }

  /** Refused from the next request on; the workspace's last full_access key answers 409. */
  remove(apiKeyId: string): Promise<Result<Deleted>> {
    return this.transport.call({ method: 'DELETE', path: pathOf`/v1/api-keys/${apiKeyId}` });
  }
}
