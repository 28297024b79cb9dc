import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { ForbiddenError, RateLimitError, UnauthorizedError } from '../lib/errors.js';
import type { Session } from '../people/index.js';
import type { Services } from '../composition/index.js';

/** The cookie that carries the session token. */
export const SESSION_COOKIE = 'mailroom_session';
/** The header every state-changing request of a session carries its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';
/** Requests one session may make per minute: the dashboard's own budget, not the API keys'. */
export const DASHBOARD_REQUESTS_PER_MIN = 600;

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyRequest {
    dashboardSession: Session | null;
  }
  interface FastifyContextConfig {
    /** A dashboard route open without a session (signing in). */
    dashboardPublic?: boolean;
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Where the dashboard is: PUBLIC_URL's origin, else the one this request was made to. */
function expectedOrigin(request: FastifyRequest, config: Pick<Config, 'publicOrigin'>): string {
  return config.publicOrigin ?? `${request.protocol}://${request.host}`;
}

/**
 * Every dashboard API request: the session its cookie opens (401 without one,
 * but for the routes marked public); for anything but a read, the `Origin`
 * must be the dashboard's own and, in a session, `x-csrf-token` its CSRF
 * token (403 otherwise); then the session's own rate limit (429).
 */
export function registerSessionGuard(app: FastifyInstance, services: Pick<Services, 'sessions' | 'rateLimiter'>, config: Pick<Config, 'publicOrigin'>): void {
  app.decorateRequest('dashboardSession', null);
  app.addHook('onRequest', async (request) => {
    const token = request.cookies[SESSION_COOKIE];
    const session = token ? await services.sessions.authenticate(token) : undefined;
    const isPublic = request.routeOptions.config?.dashboardPublic === true;
    if (!session && !isPublic) throw new UnauthorizedError('Sign in first');
    if (!READS.has(request.method)) {
      if (request.headers.origin !== expectedOrigin(request, config)) throw new ForbiddenError('Cross-origin request refused');
      const csrf = request.headers[CSRF_HEADER];
      if (session && !isPublic && (typeof csrf !== 'string' || !sameSecret(csrf, session.csrfToken))) throw new ForbiddenError('CSRF token missing or wrong');
    }
    if (session) {
      const decision = await services.rateLimiter.consume(`session:${session.tokenHash}`, DASHBOARD_REQUESTS_PER_MIN);
      if (!decision.allowed) throw new RateLimitError(Math.max(1, decision.resetAt - Math.floor(Date.now() / 1000)));
    }
    request.dashboardSession = session ?? null;
  });
}

/** The session of a request the guard let through as signed in. */
export function sessionOf(request: FastifyRequest): Session {
  if (!request.dashboardSession) throw new UnauthorizedError('Sign in first');
  return request.dashboardSession;
}
