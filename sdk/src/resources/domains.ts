import type { Result } from '../result.js';
import { pathOf, type Transport } from '../transport.js';
import type { Deleted, Domain, DomainDetail } from '../types.js';

/** The workspace's sending domains (/v1/domains). */
export class Domains {
  constructor(private readonly transport: Transport) {}

  list(): Promise<Result<Domain[]>> {
    return this.transport.call({ method: 'GET', path: '/v1/domains' });
  }

  /** Adds a domain (`pending`) and answers the DNS records to publish. */
  create(params: { domain: string }): Promise<Result<DomainDetail>> {
    return this.transport.call({ method: 'POST', path: '/v1/domains', body: params });
  }

  get(domainId: string): Promise<Result<DomainDetail>> {
    return this.transport.call({ method: 'GET', path: pathOf`/v1/domains/${domainId}` });
  }

  /** Looks the records up over DNS; `verified` once the DKIM record matches. */
  verify(domainId: string): Promise<Result<DomainDetail>> {
    return this.transport.call({ method: 'POST', path: pathOf`/v1/domains/${domainId}/verify` });
  }

  remove(domainId: string): Promise<Result<Deleted>> {
    return this.transport.call({ method: 'DELETE', path: pathOf`/v1/domains/${domainId}` });
  }
}
