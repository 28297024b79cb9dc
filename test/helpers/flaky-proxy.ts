import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * What the proxy does with one request: pass it on and answer what the server
 * answered (`forward`); answer by itself without asking the server
 * (`answer`); pass it on, let the server answer in full, then cut the
 * client's connection without a byte of that answer (`cut-after-forward`):
 * the server did the work, the client saw a network error; or never answer
 * (`hold`), until the proxy closes.
 */
export type ProxyAction =
  | { kind: 'forward' }
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body?: string }
  | { kind: 'cut-after-forward' }
  | { kind: 'hold' };

export interface ProxiedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** What the server answered, for requests that reached it. */
  upstreamStatus?: number;
}

export interface FlakyProxy {
  url: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the body's framing, which this proxy sets anew. */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

/**
 * A real HTTP proxy on loopback in front of a real Mailroom at `upstream`,
 * doing to the n-th request (0-based) what `plan(n)` says: so a test gets 5xx
 * answers and lost answers from the network, where a client meets them.
 */
export async function startFlakyProxy(upstream: string, plan: (index: number) => ProxyAction): Promise<FlakyProxy> {
  const target = new URL(upstream);
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen: ProxiedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const action = plan(requests.length);
      requests.push(seen);
      if (action.kind === 'answer') {
        res.writeHead(action.status, { 'content-type': 'application/json', ...action.headers });
        res.end(action.body ?? '');
        return;
      }
      if (action.kind === 'hold') return;
      void forward(req, Buffer.concat(chunks)).then(({ status, headers, body }) => {
        seen.upstreamStatus = status;
        if (action.kind === 'cut-after-forward') {
          req.socket.destroy();
          return;
        }
        res.writeHead(status, headers);
        res.end(body);
      }, () => res.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function forward(req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }> {
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !NOT_FORWARDED.has(name))) as Record<string, string | string[]>;
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...headers, 'content-length': String(body.length) } },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const kept = Object.fromEntries(Object.entries(answer.headers).filter(([name, value]) => !NOT_FORWARDED.has(name) && value !== undefined));
            resolve({ status: answer.statusCode ?? 502, headers: kept as Record<string, string | string[]>, body: Buffer.concat(parts) });
          });
          answer.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
