import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

export interface ForwardingProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A reverse proxy on loopback in front of a real Mailroom at `upstream`, setting the headers as
 * docs/operations.md's nginx block does: Host kept, the connecting address appended to whatever
 * X-Forwarded-For the client sent (nginx's `$proxy_add_x_forwarded_for`), and X-Forwarded-Proto
 * `https`, the `$scheme` of nginx's TLS listener this stands in for.
 */
export async function startForwardingProxy(upstream: string): Promise<ForwardingProxy> {
  const target = new URL(upstream);
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const given = req.headers['x-forwarded-for'];
    const headers: OutgoingHttpHeaders = {
      ...withoutHopByHop(req.headers),
      'x-forwarded-for': given ? `${given}, ${req.socket.remoteAddress}` : req.socket.remoteAddress,
      'x-forwarded-proto': 'https',
    };
    const outgoing = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.headers));
      answer.pipe(res);
    });
    outgoing.on('error', () => res.destroy());
    req.pipe(outgoing);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Connection-level headers (RFC 9110 §7.6.1) belong to one hop, not to the request passed on. */
function withoutHopByHop(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const { connection: _connection, 'keep-alive': _keepAlive, 'transfer-encoding': _encoding, ...rest } = headers;
  return rest;
}

export interface PlainAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request on a connection of its own from the loopback address `from` (any of 127.0.0.0/8 on
 * Linux): a client with an address of its own, as the server sees it.
 */
export function requestFrom(
  from: string,
  url: string,
  options: { method?: string; headers?: OutgoingHttpHeaders; body?: unknown; /** Called once the whole request is written. */ sent?: () => void } = {},
): Promise<PlainAnswer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers = { ...options.headers, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: options.method ?? 'GET', headers, localAddress: from, agent: false }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: Buffer.concat(chunks).toString('utf8') }));
      answer.on('error', reject);
    });
    outgoing.on('error', reject);
    if (options.sent) outgoing.on('finish', options.sent);
    outgoing.end(payload);
  });
}
