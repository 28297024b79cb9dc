import type { ServerOptions } from 'node:http';

/**
 * How long and how large a request on the API's port may be, as Node's HTTP
 * server enforces it before Fastify sees the request (docs/operations.md,
 * "HTTP timeouts and limits"). Node's defaults let a client that sends its
 * headers a byte a second hold a connection for up to 90 s (a 60 s headers
 * timeout, looked at every 30 s) and Fastify's turn the request timeout off.
 */

/** From a request's first byte to the end of its headers; honest clients send them in one packet. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** How often Node looks for requests past the headers or request timeout: the most either is overrun. */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;
/**
 * An idle keep-alive connection is closed after this: longer than the 60 s idle timeout of common load
 * balancers and proxies (AWS's, nginx's upstream keepalive), so that they, not Mailroom, close an idle
 * connection and no request of theirs races the close.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;
/** The request line and headers together (Node's own default, stated): beyond it, 431 or 414. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** The request target (path and query); nothing the API takes is near it (http/request-limits.ts). */
export const MAX_URL_BYTES = 8 * 1024;
/**
 * HTTP_REQUEST_TIMEOUT_MS by default: from a request's first byte to its body's last. A send may carry
 * 70 MiB (sending/send-memory.ts): ten minutes is 1 Mbit/s, and includes a large send's wait for its
 * turn to be read (http/body-budget.ts).
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10 * 60_000;
/** The most HTTP_REQUEST_TIMEOUT_MS may be, a day: Node's socket timers hold 2^31 − 1 ms, and a longer one would fire at once. */
export const MAX_REQUEST_TIMEOUT_MS = 86_400_000;
/**
 * A connection on which nothing moves for this much longer than a request may take is closed (Fastify's
 * `connectionTimeout`, the socket's idle timeout). A large send waiting for the body budget is silent
 * meanwhile, so this must not be shorter than the request timeout, which then answers such a request
 * 408 first; what it alone bounds is a handler's time and a client that does not read its answer.
 */
const IDLE_BEYOND_REQUEST_MS = 60_000;

export interface ServerLimits {
  connectionTimeout: number;
  keepAliveTimeout: number;
  requestTimeout: number;
  http: ServerOptions;
}

/** Fastify's options for the limits above, with the request timeout HTTP_REQUEST_TIMEOUT_MS gives. */
export function serverLimits(requestTimeoutMs: number): ServerLimits {
  return {
    connectionTimeout: requestTimeoutMs + IDLE_BEYOND_REQUEST_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    requestTimeout: requestTimeoutMs,
    http: {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
      maxHeaderSize: MAX_HEADER_BYTES,
      // Node answers an HTTP/1.1 request without Host with an empty 400 of its own; the envelope's is in request-limits.ts.
      requireHostHeader: false,
    },
  };
}

/**
 * The same headers timeout and sizes for a listener of Node's own whose requests have no body
 * (observability/metrics-listener.ts): each must have arrived whole within the headers timeout.
 */
export const BODILESS_SERVER_LIMITS: ServerOptions = {
  headersTimeout: HEADERS_TIMEOUT_MS,
  requestTimeout: HEADERS_TIMEOUT_MS,
  connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
  keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
  maxHeaderSize: MAX_HEADER_BYTES,
};
