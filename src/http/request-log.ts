import type { FastifyRequest } from 'fastify';

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
