import type { FastifyInstance } from 'fastify';
import { UrlTooLongError, ValidationError } from '../lib/errors.js';
import { MAX_URL_BYTES } from './server-limits.js';

export const URL_TOO_LONG = `The request URL is longer than ${MAX_URL_BYTES} bytes`;

/**
 * What no route reads, refused whatever the route (RFC 9112 §3.2: the
 * request-target and Host): a URL longer than MAX_URL_BYTES answers 414; a
 * NUL (`%00`) anywhere in the path or query 400 (no id, address or search
 * term holds one, and PostgreSQL's text cannot: looked up as given,
 * `GET /v1/messages/%00` was a 500 there); an HTTP/1.1 request without
 * `Host` 400 (in the envelope: Node's own check, off in server-limits.ts,
 * answers with an empty body). On every route but `except` (the health
 * check, which load balancers call as they like, and the OpenAPI document:
 * neither reads the URL). Before the body is read; after the API guard, so
 * such a request is authenticated and counted like any other, and answered in
 * its route's dialect. URLs longer than Node's parser takes
 * (server-limits.ts) are refused there (connection-errors.ts).
 */
export function refuseBadRequestTargets(app: FastifyInstance, except: string[]): void {
  // Callback style: every request runs it, and nearly every one passes at once, with no promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const refusal = refusalOf(request.url, request.raw.httpVersion, request.headers.host);
    if (refusal === undefined || except.includes(request.routeOptions.url ?? '')) return done();
    done(refusal);
  });
}

function refusalOf(url: string, httpVersion: string, host: string | undefined): Error | undefined {
  if (url.length > MAX_URL_BYTES) return new UrlTooLongError(URL_TOO_LONG);
  if (url.includes('%00')) return new ValidationError('The request URL must not contain NUL characters (%00)');
  if (httpVersion === '1.1' && host === undefined) return new ValidationError('The Host header is required in HTTP/1.1');
  return undefined;
}
