import { MailroomRequestError, succeeded, type Result } from './result.js';
import type { QueryValue, Transport } from './transport.js';

/** One page of a list, with the list's size from `X-Total-Count`. */
export interface Page<T> {
  data: T[];
  /** Entries matching the filters, over all pages. */
  total: number;
  /** `eq` when `total` is exact; `gte` when it is a lower bound (the logs' indexed filters, beyond 1,000). */
  totalRelation: 'eq' | 'gte';
}

/** The API's page size when `limit` is left out, and its largest, which iterating asks for unless told otherwise. */
const DEFAULT_PAGE = 50;
const LARGEST_PAGE = 100;

/** A list's query: its page size, and filters the API takes as query parameters. */
type PageParams = { limit?: number };

/**
 * A list call: `await` it for one page as `{data, error}`, or iterate it with
 * `for await` for every entry of every page, fetched as the loop goes (100 a
 * request unless `limit` says otherwise). The page is fetched when first
 * awaited, once; each iteration starts over.
 */
export class ListRequest<T, P extends PageParams> implements PromiseLike<Result<Page<T>>>, AsyncIterable<T> {
  private first: Promise<Result<Page<T>>> | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly path: string,
    private readonly params: P,
    /** The parameters of the page after `page`, a full page fetched with `params`. */
    private readonly nextParams: (params: P, page: Page<T>) => P,
  ) {}

  then<R1 = Result<Page<T>>, R2 = never>(
    onFulfilled?: ((value: Result<Page<T>>) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): PromiseLike<R1 | R2> {
    this.first ??= this.page(this.params);
    return this.first.then(onFulfilled, onRejected);
  }

  /** Every entry of every page. Throws MailroomRequestError when a page cannot be fetched (after its retries). */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let params: P = { ...this.params, limit: this.params.limit ?? LARGEST_PAGE };
    for (;;) {
      const { data, error } = await this.page(params);
      if (error) throw new MailroomRequestError(error);
      yield* data.data;
      // A short page is the last; so is an empty one, whatever the limit.
      if (data.data.length === 0 || data.data.length < (params.limit ?? DEFAULT_PAGE)) return;
      params = this.nextParams(params, data);
    }
  }

  private async page(params: P): Promise<Result<Page<T>>> {
    const result = await this.transport.request<T[]>({ method: 'GET', path: this.path, query: { ...params } as Record<string, QueryValue> });
    if (result.error) return result;
    const { data, headers } = result.data;
    const total = Number(headers.get('x-total-count') ?? data.length);
    return succeeded({ data, total, totalRelation: headers.get('x-total-count-relation') === 'gte' ? 'gte' : 'eq' });
  }
}
