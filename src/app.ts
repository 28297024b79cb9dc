import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { fail } from './http/envelope.js';
import type { Config } from './config.js';
import { HEALTH_PATH, registerApiGuard } from './http/api-guard.js';
import { registerErrorHandling } from './http/error-handler.js';
import { answerRequestsFastifyNeverSees, clientErrorHandler } from './http/connection-errors.js';
import { refuseBadRequestTargets } from './http/request-limits.js';
import { serverLimits } from './http/server-limits.js';
import { fastifyTrustProxy } from './http/trust-proxy.js';
import { LOGGED_HEADER_SECRETS, RequestLogController, requestLogSerializer } from './http/request-log.js';
import { formatValidationError, refuseUnknownQueryParameters, validatorCompiler } from './http/validation.js';
import { parseJsonBodiesSayingWhere } from './http/json-body.js';
import { apiKeyRoutes } from './api-keys/index.js';
import { domainRoutes } from './domains/index.js';
import { healthRoutes, answerRequestId, logDestination, monitoringRoutes, requestIdOptions, timeRequests } from './observability/index.js';
import { logRoutes } from './logs/index.js';
import { sendRoutes, registerIdempotency } from './sending/index.js';
import { suppressionRoutes } from './suppressions/index.js';
import { webhookRoutes } from './webhooks/index.js';
import { templateRoutes } from './templates/index.js';
import { engagementRoutes, trackingRoutes } from './tracking/index.js';
import { upstreamRoutes } from './upstreams/index.js';
import { statsRoutes } from './stats/index.js';
import { messageRoutes } from './messages/index.js';
import { sesEventsRoutes } from './ses-events/index.js';
import { DASHBOARD_API_PREFIX, dashboardApi, dashboardUi } from './dashboard/index.js';
import type { Services } from './composition/index.js';
import { RESEND_PREFIX, resendCompat } from './compat/resend/index.js';
import { OPENAPI_PATH, registerOpenApi } from './openapi/register.js';

/** HTML bodies can be large; this bounds what one request may make us buffer. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

export type App = FastifyInstance;

export interface AppOptions {
  config: Config;
  services: Services;
  logger?: FastifyServerOptions['logger'];
  /**
   * Called once the app's own hooks are in place, before its first route: hooks added here run for every
   * route (a plugin's routes take the hooks of the moment it is registered). Tests observe the routes here.
   */
  beforeRoutes?: (app: App) => void;
}

/** The whole HTTP API as one Fastify instance; `server.ts` only boots it, tests `inject` into it. */
export async function buildApp({ config, services, logger, beforeRoutes }: AppOptions): Promise<App> {
  const app = Fastify({
    // Fastify's request serializer logs no headers today; the redaction keeps
    // keys, the dashboard's session cookie and its CSRF token out of the log
    // should a serializer or a debug line ever add them (test/no-secrets-in-logs.test.ts).
    // Tokens of invitation and setup links travel in URLs: the request serializer leaves them out.
    logger: logger ?? { level: config.logLevel, redact: LOGGED_HEADER_SECRETS, serializers: { req: requestLogSerializer }, stream: logDestination(config) },
    logController: new RequestLogController(),
    ...requestIdOptions,
    bodyLimit: MAX_BODY_BYTES,
    // An address in a path (/v1/suppressions/{email}) is up to 254 characters, three times that percent-encoded:
    // Fastify's default of 100 refused long real addresses with a 400 before the route saw them.
    routerOptions: { maxParamLength: 3 * 254 },
    // Timeouts and sizes of the HTTP connection (http/server-limits.ts), and the envelope for what Node refuses there.
    ...serverLimits(config.httpRequestTimeoutMs),
    clientErrorHandler: clientErrorHandler(config.httpRequestTimeoutMs),
    trustProxy: fastifyTrustProxy(config.trustProxy),
    schemaErrorFormatter: formatValidationError,
    // Errors Fastify meets before routing (a path whose percent-encoding is broken) answer in the envelope too.
    frameworkErrors: (error, _request, reply) => {
      void (reply as FastifyReply).code(400).send(fail(error.code === 'FST_ERR_BAD_URL' ? 'The request path is not valid URL encoding' : 'Bad request'));
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Every request body is JSON (SPEC.md §1): other types answer 415 rather than reaching a schema as a string.
  app.removeContentTypeParser('text/plain');
  parseJsonBodiesSayingWhere(app);
  answerRequestsFastifyNeverSees(app.server);
  app.setValidatorCompiler(validatorCompiler);
  app.decorate('services', services);
  registerErrorHandling(app);
  // First of the hooks, so every answer carries its id and is timed, refusals of the guard included.
  answerRequestId(app);
  if (services.metrics) timeRequests(app, services.metrics);
  refuseUnknownQueryParameters(app, [HEALTH_PATH, OPENAPI_PATH]);
  registerApiGuard(app, {
    authenticate: (key, options) => services.apiKeys.authenticate(key, options),
    authenticateRemembered: (key) => services.apiKeys.authenticateRemembered(key),
    rateLimiter: services.rateLimiter,
    limits: config.rateLimits,
  });
  refuseBadRequestTargets(app, [HEALTH_PATH, OPENAPI_PATH]);
  // After the guard's onRequest hook, so a replay is counted and carries fresh rate-limit headers.
  registerIdempotency(app, services.idempotency);
  beforeRoutes?.(app);
  // Before the routes: the document is made of their schemas.
  await registerOpenApi(app);

  await app.register(healthRoutes);
  await app.register(monitoringRoutes(config, services.metrics));
  await app.register(sendRoutes);
  await app.register(logRoutes);
  await app.register(statsRoutes);
  await app.register(engagementRoutes);
  await app.register(messageRoutes);
  await app.register(domainRoutes);
  await app.register(upstreamRoutes);
  await app.register(apiKeyRoutes);
  await app.register(suppressionRoutes);
  await app.register(webhookRoutes);
  await app.register(templateRoutes);
  await app.register(trackingRoutes);
  await app.register(sesEventsRoutes);
  await app.register(resendCompat, { prefix: RESEND_PREFIX });
  await app.register(dashboardApi(config), { prefix: DASHBOARD_API_PREFIX });
  await app.register(dashboardUi());
  return app;
}
