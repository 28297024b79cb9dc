import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, RecipientLimitError } from '../lib/errors.js';
import { fail } from './envelope.js';
import { NOT_JSON } from './json-body.js';
import './api-dialect.js';
import { reportBudget } from './rate-limit-headers.js';

/** Messages for the client errors Fastify itself raises while reading a request. */
const FASTIFY_CLIENT_ERRORS: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Content-Type must be application/json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body must not be empty when Content-Type is application/json',
  FST_ERR_CTP_INVALID_JSON_BODY: NOT_JSON,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the request body',
};

/**
 * The one place that maps errors to HTTP statuses and the envelope. Domain
 * errors carry their status; anything unexpected is logged and answered with
 * a generic 500, never with its own message or stack. A route speaking
 * another API's dialect (http/api-dialect.ts) gets the same decision worded
 * its way.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, message } = failureOf(error, request);
    if (error instanceof AppError && error.retryAfterSeconds !== undefined) reply.header('Retry-After', error.retryAfterSeconds);
    // A route speaking another API's dialect (compat/resend) words the same failure its own way.
    const dialect = request.routeOptions.config?.dialect;
    // The budget that refused, in place of the request's own the guard reported.
    if (error instanceof RecipientLimitError) reportBudget(reply, error.budget, dialect, Math.floor(Date.now() / 1000));
    if (!dialect) return reply.code(status).send(fail(message, error instanceof AppError ? error.hint : undefined));
    const answer = dialect.failure({ status, message, error });
    return reply.code(answer.status).send(answer.body);
  });

  // Remember every route's path pattern, so a known path with the wrong method answers 405, not 404.
  const routes: { pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(`^${route.url.replace(/:[^/]+/g, '[^/]+')}/?$`);
    const methods = [route.method].flat();
    const existing = routes.find((r) => r.pattern.source === pattern.source);
    if (existing) methods.forEach((m) => existing.methods.add(m));
    else routes.push({ pattern, methods: new Set(methods) });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const route = routes.find((r) => r.pattern.test(path));
    if (route) {
      reply.header('Allow', [...route.methods].join(', '));
      return reply.code(405).send(fail(`Method ${request.method} is not allowed on ${path}`));
    }
    return reply.code(404).send(fail(`No route for ${request.method} ${path}`));
  });
}

/** Mailroom's status for an error, and the sentence safe to show; unexpected errors are logged here, never shown. */
function failureOf(error: FastifyError, request: FastifyRequest): { status: number; message: string } {
  if (error instanceof AppError) {
    // The caller sees the typed message only; the operator's log gets what caused it.
    if (error.statusCode >= 500) request.log.error({ err: error.cause ?? error }, 'request failed');
    return { status: error.statusCode, message: error.message };
  }
  if (error.validation) return { status: 400, message: error.message };
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const message = FASTIFY_CLIENT_ERRORS[error.code] ?? (error instanceof SyntaxError ? FASTIFY_CLIENT_ERRORS.FST_ERR_CTP_INVALID_JSON_BODY! : 'Bad request');
    return { status, message };
  }
  request.log.error({ err: error }, 'request failed');
  return { status: 500, message: 'Internal server error' };
}
