import { ListRequest } from '../list.js';
import type { Result } from '../result.js';
import { pathOf, type Transport } from '../transport.js';
import type { AddSuppressionRequest, DeletedSuppression, ListSuppressionsParams, Suppression } from '../types.js';

/** The workspace's suppression list (/v1/suppressions). Addresses go into paths encoded. */
export class Suppressions {
  constructor(private readonly transport: Transport) {}

  /**
   * `await` it for one page, or `for await` over every entry, paged by
   * `offset` (an entry added meanwhile shifts the pages: it may repeat one).
   */
  list(params: ListSuppressionsParams = {}): ListRequest<Suppression, ListSuppressionsParams> {
    return new ListRequest(this.transport, '/v1/suppressions', params, (query, page) => ({ ...query, offset: (query.offset ?? 0) + page.data.length }));
  }

  /** Adds an address by hand (`manual`); an address already listed answers its entry unchanged. */
  add(params: AddSuppressionRequest): Promise<Result<Suppression>> {
    return this.transport.call({ method: 'POST', path: '/v1/suppressions', body: params });
  }

  get(email: string): Promise<Result<Suppression>> {
    return this.transport.call({ method: 'GET', path: pathOf`/v1/suppressions/${email}` });
  }

  /** Later sends to the address are delivered again. */
  remove(email: string): Promise<Result<DeletedSuppression>> {
    return this.transport.call({ method: 'DELETE', path: pathOf`/v1/suppressions/${email}` });
  }
}
