import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../lib/errors.js';
import apiKeyRoutes from './api-key-routes.js';
import domainRoutes from './domain-routes.js';
import emailRoutes from './email-routes.js';
import { resendDialect } from './resend-dialect.js';
import templateRoutes from './template-routes.js';

export const RESEND_PREFIX = '/compat/resend';

/**
 * Resend's REST API (e-mails, domains, API keys, templates) under RESEND_PREFIX, on
 * /v1's services: `Authorization: Bearer <Mailroom key>`, Resend's bodies,
 * errors and rate-limit headers (resend-dialect.ts). Every other path under
 * the prefix answers 404 `not_found`, after the key check as under /v1.
 */
export async function resendCompat(app: FastifyInstance): Promise<void> {
  // Every route of this plugin, the 404 below included, speaks Resend's dialect to the guard and the error handler.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, dialect: resendDialect };
  });

  // Resend's SDK sends `Content-Type: application/json` with no body on cancel, verify and delete:
  // here an empty JSON body is no body, rather than the 400 the rest of the API answers.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined);
    else parseJson(request, body as string, done);
  });

  app.setNotFoundHandler({ config: { dialect: resendDialect } } as Parameters<FastifyInstance['setNotFoundHandler']>[0], async (request) => {
    throw new NotFoundError(`${request.method} ${request.url.split('?')[0]} is not part of Mailroom's Resend-compatible API`);
  });

  await app.register(emailRoutes);
  await app.register(domainRoutes);
  await app.register(apiKeyRoutes);
  await app.register(templateRoutes);
}
