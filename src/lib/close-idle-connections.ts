import type { Server } from 'node:http';

/**
 * Has a closing HTTP server let go of its keep-alive connections as soon as no
 * answer is left to send. Fastify's close() ends the connections idle at that
 * moment and waits for the others; one whose request was in flight then goes
 * back to idle and stays open for as long as the client keeps it alive (up to
 * keepAliveTimeout: 72 s by Fastify's default), holding close() and the exit.
 * And Node's own idea of idle misses some (seen: a client's connection with no
 * request on it outlived close() now and then, and serve's grace with it), so
 * once nothing is in flight every connection left is ended.
 *
 * Returns what the app's preClose calls as the close begins.
 */
export function closeConnectionsOnceIdle(server: Server): () => void {
  let inFlight = 0;
  let closing = false;
  function letGo(): void {
    if (!closing) return;
    // The preClose hook runs just before Fastify calls server.close(): once that has happened.
    if (server.listening) return void setImmediate(letGo);
    if (inFlight === 0) server.closeAllConnections();
    else server.closeIdleConnections();
  }
  server.on('request', (_request, response) => {
    inFlight++;
    // 'close', not 'finish': an answer cut short (the client went away) is done too.
    response.once('close', () => {
      inFlight--;
      // After this answer's own bookkeeping, so that its connection counts as idle. Nothing to do before the
      // close begins: no turn scheduled per answer on the hot path.
      if (closing) setImmediate(letGo);
    });
  });
  return () => {
    closing = true;
    setImmediate(letGo);
  };
}
