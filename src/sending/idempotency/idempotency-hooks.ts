import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { workspaceOf } from '../../http/api-guard.js';
import { requestFingerprint, type IdempotencyService, type StoredResponse } from './idempotency-service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route honours an `Idempotency-Key` header (see sending/idempotency). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    /** The idempotency key this request holds while it runs; null without one. */
    idempotencyClaim: { workspaceId: string; key: string; lease: string } | null;
  }
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * Headers not replayed: the rate-limit ones (and Retry-After) describe the
 * request being answered now, so a replay carries fresh ones from the guard;
 * the rest are the transport's, written anew for every response.
 */
const NOT_REPLAYED = /^(x-ratelimit-.*|retry-after|content-length|date|connection|keep-alive|transfer-encoding)$/i;

/**
 * Makes every route marked `config: { idempotent: true }` honour the
 * `Idempotency-Key` header. It runs after the API guard (a replay counts
 * against the rate limit like any request) and after schema validation (a
 * body the schema refuses never claims the key, as at Stripe), and stores the
 * answer before it is sent, so a client that got it finds it on a retry.
 */
export function registerIdempotency(app: FastifyInstance, service: IdempotencyService): void {
  app.decorateRequest('idempotencyClaim', null);

  // Callback style: every request runs these, and nearly every one passes at once, with no promise.
  app.addHook('preHandler', (request, reply, done) => {
    if (request.routeOptions.config?.idempotent !== true) return done();
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (header === undefined) return done();
    // A replay answers here, and the route's handler does not run: done is not called then.
    claimOrReplay(service, request, reply, header).then((replayed) => {
      if (!replayed) done();
    }, done);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const claim = request.idempotencyClaim;
    if (!claim) return done(null, payload);
    request.idempotencyClaim = null;
    void storeAnswer(service, request, reply, claim, payload).then(() => done(null, payload));
  });

  // A request that never reached onSend (its connection went first) must not keep the key until take-over.
  app.addHook('onResponse', (request, _reply, done) => {
    const claim = request.idempotencyClaim;
    if (!claim) return done();
    request.idempotencyClaim = null;
    void service
      .release(claim.workspaceId, claim.key, claim.lease)
      .catch((err: unknown) => request.log.error({ err }, 'could not release an idempotency key'))
      .then(() => done());
  });
}

/** Claims the request's key, or answers the response stored under it: true when it answered. */
async function claimOrReplay(service: IdempotencyService, request: FastifyRequest, reply: FastifyReply, header: string | string[]): Promise<boolean> {
  const key = service.checkKey(Array.isArray(header) ? header.join(', ') : header);
  const workspaceId = workspaceOf(request);
  const outcome = await service.begin(workspaceId, key, requestFingerprint(request.method, request.url, request.body));
  purgeOccasionally(service, request);
  if (outcome.kind === 'claimed') {
    request.idempotencyClaim = { workspaceId, key, lease: outcome.lease };
    return false;
  }
  replay(reply, outcome.response);
  return true;
}

/** Stores the answer under the claimed key before it is sent; never throws. */
async function storeAnswer(service: IdempotencyService, request: FastifyRequest, reply: FastifyReply, claim: NonNullable<FastifyRequest['idempotencyClaim']>, payload: unknown): Promise<void> {
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  try {
    if (body === undefined) await service.release(claim.workspaceId, claim.key, claim.lease);
    else await service.finish(claim.workspaceId, claim.key, claim.lease, { status: reply.statusCode, headers: replayableHeaders(reply), body });
  } catch (err) {
    // The request itself did its work and is answered; the key stays in flight until it is taken over.
    request.log.error({ err }, 'could not store the idempotent response');
  }
}

function replay(reply: FastifyReply, response: StoredResponse): FastifyReply {
  return reply.code(response.status).headers(response.headers).header(REPLAYED_HEADER, 'true').send(response.body);
}

function replayableHeaders(reply: FastifyReply): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value === undefined || NOT_REPLAYED.test(name)) continue;
    headers[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return headers;
}

function purgeOccasionally(service: IdempotencyService, request: FastifyRequest): void {
  // Not awaited: the request does not wait for the clean-up, and a failure only delays it to the next purge.
  service.purgeExpiredIfDue()?.catch((err: unknown) => request.log.warn({ err }, 'could not purge expired idempotency keys'));
}
