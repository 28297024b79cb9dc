import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BODILESS_SERVER_LIMITS } from '../http/server-limits.js';
import { bearerMatches, TOKEN_REQUIRED } from './metrics-token.js';
import type { Metrics } from './metrics.js';
import { METRICS_PATH } from './monitoring-routes.js';

export interface MetricsListener {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * METRICS_PORT: `GET /metrics` on a port of its own (HOST), apart from the
 * API, so it can stay on a private interface or behind a firewall; the
 * token, when METRICS_TOKEN is set, is asked for here too. Anything else
 * answers 404. `mailroom serve` and `mailroom worker` both run it. A request
 * must arrive whole within the API's headers timeout (http/server-limits.ts).
 */
export async function startMetricsListener(host: string, port: number, metrics: Metrics, token: string | undefined): Promise<MetricsListener> {
  const server: Server = createServer(BODILESS_SERVER_LIMITS, (request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at GET /metrics\n');
      return;
    }
    if (token !== undefined && !bearerMatches(request.headers.authorization, token)) {
      response.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer realm="metrics"' }).end(TOKEN_REQUIRED);
      return;
    }
    metrics.scrape().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics could not be collected\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
