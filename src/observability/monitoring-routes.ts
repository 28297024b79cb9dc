import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { NotFoundError, RETRY_AFTER_STORE_DOWN_SECONDS } from '../lib/errors.js';
import { bearerMatches, TOKEN_REQUIRED } from './metrics-token.js';
import type { Metrics } from './metrics.js';

export const LIVENESS_PATH = '/livez';
export const READINESS_PATH = '/readyz';
export const METRICS_PATH = '/metrics';

/** A probe or a scrape every few seconds is noise at `info`: these routes log at `warn` and above only (errors still show). */
const QUIET = { logLevel: 'warn', config: { withoutApiKey: true } } as const;

/** How often a scraper or a probe may call: never counted against a key, never rate-limited, never in the OpenAPI document (outside /v1). */
export function monitoringRoutes(config: Pick<Config, 'metrics'>, metrics: Metrics | undefined) {
  return async function register(app: FastifyInstance) {
    // The process is up and its event loop turns: nothing else is asked, so a slow store never gets the process restarted.
    app.get(LIVENESS_PATH, QUIET, async () => ({ status: 'ok' }));

    // Whether this process can serve: the store answers and is migrated, Redis answers when configured, and the
    // provider has not refused Mailroom's credentials (as the worker last heard, through the store). An SNS
    // subscription still to confirm is shown beside, not counted: the process serves all the same.
    app.get(READINESS_PATH, QUIET, async (_request, reply) => {
      const { down, reasons } = await app.services.readiness.check();
      // A store that does not answer cannot say whether it is migrated, or what the worker heard: named once, as the store.
      const notReady = down.includes('database') ? down.filter((name) => name !== 'migrations' && name !== 'provider') : down.includes('migrations') ? down.filter((name) => name !== 'provider') : down;
      const why = Object.fromEntries(Object.entries(reasons).filter(([name]) => notReady.includes(name)));
      if (notReady.length > 0) {
        return reply
          .code(503)
          .header('Retry-After', RETRY_AFTER_STORE_DOWN_SECONDS)
          .send({ status: 'not ready', not_ready: notReady, ...(Object.keys(why).length > 0 ? { reasons: why } : {}) });
      }
      const pending = await app.services.sesEvents.pendingConfirmations();
      return pending.length > 0 ? { status: 'ready', ses_sns_subscriptions_pending: pending } : { status: 'ready' };
    });

    // On the main port only behind METRICS_TOKEN: without one, /metrics answers as an unknown path does (404, not the
    // API guard's 401 of a path it does not know), and METRICS_PORT is the way.
    const token = config.metrics.token;
    app.get(METRICS_PATH, QUIET, async (request, reply) => {
      if (!metrics || token === undefined) throw new NotFoundError(`No route for GET ${METRICS_PATH}`);
      if (!bearerMatches(request.headers.authorization, token)) {
        return reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').type('text/plain; charset=utf-8').send(TOKEN_REQUIRED);
      }
      return reply.type(metrics.contentType).send(await metrics.scrape());
    });
  };
}

/** Every answer timed into the HTTP histogram, by route pattern and status. */
export function timeRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
