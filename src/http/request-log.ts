import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

const REDACTED = '[redacted]';

/** Request headers that carry a credential: an API key, a session cookie, a CSRF token (pino's redaction paths). */
export const LOGGED_HEADER_SECRETS = ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-csrf-token"]'];

/**
 * A request's URL as the log may keep it: without the secrets that travel in
 * URLs, an invitation link's token (in the dashboard API's path) and any
 * `token=` of a query (the setup and invitation pages). Whoever reads the log
 * must not be able to use a link from it.
 */
export function loggableUrl(url: string): string {
  return url.replace(/(\/api\/invitations\/)[^/?#]+/, `$1${REDACTED}`).replace(/([?&]token=)[^&#]*/g, `$1${REDACTED}`);
}

/** Fastify's own request serializer (lib/logger-pino.js), with the URL made loggable. */
export function requestLogSerializer(request: FastifyRequest) {
  const version = request.headers?.['accept-version'];
  return {
    method: request.method,
    url: loggableUrl(request.url),
    version: Array.isArray(version) ? version[0] : version,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * One line a request at `info`, written when it is answered: the request (method, URL, remote address)
 * beside the answer's status and time. Fastify's default writes a second line as each request arrives,
 * which doubled the log and, under load, cost the HTTP thread some 6–10 µs a request (a tenth of a
 * send's cost there, bench/README.md); that line is kept at `debug`, for following a request that never ends.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
