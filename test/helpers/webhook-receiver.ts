import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';

export interface ReceivedHook {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface WebhookReceiver {
  port: number;
  url: string;
  received: ReceivedHook[];
  /** Starts answering on the same port again after `close`. */
  listen(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback that keeps every request it gets and answers
 * as `respond` says (by default 200). `respond` may also hold the answer back
 * by returning a promise.
 */
export async function startWebhookReceiver(
  respond: (hook: ReceivedHook, index: number) => number | Promise<number> = () => 200,
  port = 0,
): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const make = () => {
    const server = createServer((req, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const hook = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        received.push(hook);
        void Promise.resolve(respond(hook, received.length - 1)).then((status) => {
          res.writeHead(status, { 'content-type': 'text/plain' });
          res.end(status >= 200 && status < 300 ? 'ok' : `status ${status}`);
        });
      });
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    return server;
  };
  let server = make();
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const bound = (server.address() as { port: number }).port;
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}/hooks`,
    received,
    async listen() {
      server = make();
      server.listen(bound, '127.0.0.1');
      await once(server, 'listening');
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
