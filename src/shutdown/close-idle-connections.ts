import type { Server } from 'node:http';

/**
 * Has a closing HTTP server let go of each keep-alive connection as soon as its
 * last answer is sent. Fastify's close() ends the connections idle at that
 * moment and waits for the others; one whose request was in flight then goes
 * back to idle and stays open for as long as the client keeps it alive (up to
 * keepAliveTimeout: 72 s by Fastify's default), holding close() and the exit.
 */
export function closeConnectionsOnceIdle(server: Server): void {
  server.on('request', (_request, response) => {
    response.once('finish', () => {
      // Not listening once close() has begun; the connection is idle only after this answer's own bookkeeping.
      if (!server.listening) setImmediate(() => server.closeIdleConnections());
    });
  });
}
