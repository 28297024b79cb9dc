import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { ApiKeyInAuthorizationError, MissingApiKeyError, RateLimitError, SendingOnlyKeyError, UnauthorizedError } from '../lib/errors.js';
import { clientNetworkOf } from '../lib/client-network.js';
import type { AuthenticatedKey, SendingKey } from '../lib/key-identity.js';
import type { RateLimitDecision, RateLimiter } from '../lib/rate-limiter.js';
import './api-dialect.js';
import { reportBudget } from './rate-limit-headers.js';

export const HEALTH_PATH = '/v1/health/check';

export type RateLimitClass = 'send' | 'other';

/**
 * The routes a sending_access key may call; every other route, present or
 * future, answers 403. The batch route is named before it exists so that the
 * rule already holds when it lands.
 */
export const SENDING_ROUTES: ReadonlySet<string> = new Set([
  'POST /v1/send',
  'POST /v1/send/batch',
  // The Resend-compatible send routes (compat/resend).
  'POST /compat/resend/emails',
  'POST /compat/resend/emails/batch',
]);

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthenticatedKey | null;
  }
  interface FastifyContextConfig {
    /** Which per-key budget a route draws on; `other` when unset. */
    rateLimitClass?: RateLimitClass;
    /** A route outside /v1 that API keys have nothing to do with (the dashboard's pages and API). */
    withoutApiKey?: boolean;
    /**
     * A send route: what it does is written by the send writer, which checks in its transaction that the
     * key still exists (accepted-sends.ts). Its key may come from the recent-keys cache (api-key-service.ts)
     * rather than the store.
     */
    keyCheckedOnWrite?: boolean;
  }
}

interface GuardDeps {
  authenticate(key: string | undefined, options?: { cached?: boolean }): Promise<AuthenticatedKey | null>;
  /** authenticate's answer for a key read lately, when it needs no wait (api-key-service.ts); else undefined. */
  authenticateRemembered?(key: string | undefined): AuthenticatedKey | undefined;
  rateLimiter: RateLimiter;
  limits: Config['rateLimits'];
}

/** What the guard decides from: the matched route's settings and the key presented. */
interface GuardedRequest {
  url: string | undefined;
  config: FastifyRequest['routeOptions']['config'] | undefined;
  presented: string | undefined;
}

/**
 * Every request but the health check and the dashboard's API: identify
 * the key, count the request against its budget (or, without a valid key,
 * against the client address, so keys cannot be guessed at speed), report the
 * budget in headers, then refuse or let through. The health check is told
 * apart by the route that matched, not by the raw URL, so an encoded path such
 * as `/%761/send` cannot slip past.
 *
 * A callback-style hook: a send made with a key read lately, counted in this
 * process's memory, passes without a promise (nearly every request under
 * load); anything else waits for the store or Redis.
 */
export function registerApiGuard(app: FastifyInstance, deps: GuardDeps): void {
  app.decorateRequest('auth', null);

  const limitOf = (limitClass: RateLimitClass) => (limitClass === 'send' ? deps.limits.sendPerMinute : deps.limits.otherPerMinute);
  const bucketOf = (request: FastifyRequest, auth: AuthenticatedKey | null, limitClass: RateLimitClass) =>
    auth ? { bucket: `key:${auth.keyId}:${limitClass}`, limit: limitOf(limitClass) } : { bucket: `ip:${clientNetworkOf(request.ip)}`, limit: deps.limits.otherPerMinute };

  /** Reports the budget, then refuses (throws) or lets the request through with its key. */
  function admit(request: FastifyRequest, reply: FastifyReply, guarded: GuardedRequest, auth: AuthenticatedKey | null, decision: RateLimitDecision): void {
    const nowSeconds = Math.floor(Date.now() / 1000);
    reportBudget(reply, decision, guarded.config?.dialect, nowSeconds);
    if (!decision.allowed) throw new RateLimitError(Math.max(1, decision.resetAt - nowSeconds));
    if (!auth) throw guarded.presented !== undefined ? new UnauthorizedError() : misplacedKey(request, guarded) ? new ApiKeyInAuthorizationError() : new MissingApiKeyError();
    // After the rate limit, so a sending key probing other routes still spends its budget.
    if (auth.permission === 'sending_access' && !SENDING_ROUTES.has(`${request.method} ${guarded.url}`)) throw new SendingOnlyKeyError();
    request.auth = auth;
  }

  /** `remembered`: the key as authenticateRemembered answered it, when it did (the counters then are what waits). */
  async function guardAfterWaiting(request: FastifyRequest, reply: FastifyReply, guarded: GuardedRequest, remembered: AuthenticatedKey | undefined): Promise<void> {
    const auth = remembered ?? (await deps.authenticate(guarded.presented, { cached: guarded.config?.keyCheckedOnWrite === true }));
    const { bucket, limit } = bucketOf(request, auth, guarded.config?.rateLimitClass ?? 'other');
    admit(request, reply, guarded, auth, await deps.rateLimiter.consume(bucket, limit));
  }

  app.addHook('onRequest', (request, reply, done) => {
    // Read once: Fastify builds routeOptions anew at every access.
    const { url, config } = request.routeOptions;
    // Told apart by the route that matched, not the raw URL: the dashboard's routes have a guard of their own.
    if (url === HEALTH_PATH || config?.withoutApiKey === true) return done();

    const dialect = config?.dialect;
    const header = request.headers['x-api-key'];
    const guarded: GuardedRequest = { url, config, presented: dialect ? dialect.apiKey(request) : typeof header === 'string' ? header : undefined };
    const auth = config?.keyCheckedOnWrite === true ? deps.authenticateRemembered?.(guarded.presented) : undefined;
    if (auth && deps.rateLimiter.consumeNow) {
      const { bucket, limit } = bucketOf(request, auth, config?.rateLimitClass ?? 'other');
      try {
        admit(request, reply, guarded, auth, deps.rateLimiter.consumeNow(bucket, limit));
      } catch (error) {
        return done(error as Error);
      }
      return done();
    }
    guardAfterWaiting(request, reply, guarded, auth).then(() => done(), done);
  });
}

/** No x-api-key on a /v1 route, but an Authorization header: a key sent where Resend's API reads it. */
function misplacedKey(request: FastifyRequest, guarded: GuardedRequest): boolean {
  return guarded.config?.dialect === undefined && request.headers['x-api-key'] === undefined && request.headers.authorization !== undefined;
}

/** The workspace the request acts for; the guard has already refused requests without one. */
export function workspaceOf(request: FastifyRequest): string {
  if (!request.auth) throw new UnauthorizedError();
  return request.auth.workspaceId;
}

/** The request's key, as a send made with it needs it; null without one. */
export function sendingKeyOf(request: FastifyRequest): SendingKey | null {
  return request.auth ? { id: request.auth.keyId, domainId: request.auth.domainId } : null;
}

/** Marks every route the plugin `app` registers from now on as one the API-key guard leaves alone. */
export function withoutApiKeys(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, withoutApiKey: true };
  });
}
