import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { newId } from '../lib/ids.js';

export const REQUEST_ID_HEADER = 'x-request-id';

/** What an `X-Request-Id` sent by a client or a proxy must look like to be kept: short, and nothing that could forge a log line. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * The id on every log line of a request (`reqId`) and in its `X-Request-Id`
 * answer header: the one the request came with, when a proxy or the client
 * sent an acceptable one (so one id follows a request through every hop), else
 * a new `req_<ulid>` (unique, and sortable by time, unlike Fastify's counter,
 * which starts again at every restart and repeats across processes).
 */
export function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers[REQUEST_ID_HEADER];
  return typeof sent === 'string' && ACCEPTABLE_ID.test(sent) ? sent : newId('req');
}

/** Fastify's options for it: our id instead of its counter, and never its raw header. */
export const requestIdOptions = { genReqId: requestIdOf, requestIdHeader: false } satisfies Partial<FastifyServerOptions>;

/** Answers the id in a header, on every answer (errors and 404s included): the key to the request's lines in the log. */
export function answerRequestId(app: FastifyInstance): void {
  // Callback style, as the other per-request hooks that never wait: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
