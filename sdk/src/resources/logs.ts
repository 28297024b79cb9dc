import { ListRequest } from '../list.js';
import type { Transport } from '../transport.js';
import type { ListLogsParams, LogEntry } from '../types.js';

/** GET /v1/send/logs: newest first, every filter of the API. */
export class Logs {
  constructor(private readonly transport: Transport) {}

  /**
   * `await` it for one page (`data.data`, `data.total`), or `for await` over
   * every matching entry: the pages after the first are asked for with the
   * `before` cursor (the last entry's id), which costs the same at any depth.
   */
  list(params: ListLogsParams = {}): ListRequest<LogEntry, ListLogsParams> {
    return new ListRequest(this.transport, '/v1/send/logs', params, ({ offset: _offset, ...rest }, page) => ({ ...rest, before: page.data.at(-1)!.id }));
  }
}
