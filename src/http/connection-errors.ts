import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ConnectionError, FastifyInstance } from 'fastify';
import { fail } from './envelope.js';
import { URL_TOO_LONG } from './request-limits.js';
import { HEADERS_TIMEOUT_MS, MAX_HEADER_BYTES, MAX_URL_BYTES } from './server-limits.js';

/** What Node hands a 'clientError' listener, as it is: llhttp's parse errors carry a `reason`, and the chunk being parsed as a Buffer. */
type ClientError = Omit<ConnectionError, 'rawPacket'> & { reason?: string; rawPacket?: unknown };

/**
 * The status and sentence for a request refused before it has a route: Node's
 * parser found it malformed or too large, or it did not arrive in time
 * (server-limits.ts). No route, so no dialect: the envelope.
 */
export function connectionErrorAnswer(error: ClientError, requestTimeoutMs: number): { status: number; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      message: `The request did not arrive in time: its headers are read within ${HEADERS_TIMEOUT_MS / 1000} s, all of it within ${requestTimeoutMs / 1000} s`,
    };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    // The parser counts the request line and the headers together. The chunk it was parsing shows which
    // grew too long whenever it starts with the request line, as a request written at once does.
    if (Buffer.isBuffer(error.rawPacket) && requestLineLength(error.rawPacket) > MAX_URL_BYTES) return { status: 414, message: URL_TOO_LONG };
    return { status: 431, message: `The request's headers are larger than ${MAX_HEADER_BYTES / 1024} KiB, its request line included` };
  }
  // llhttp's reasons are fixed sentences of its own, never the request's bytes; this one names its inner state.
  if (error.code === 'HPE_PAUSED_H2_UPGRADE') return { status: 400, message: 'HTTP/2 without TLS is not spoken here: use HTTP/1.1' };
  return { status: 400, message: error.reason ? `The request is not valid HTTP: ${error.reason}` : 'The request is not valid HTTP' };
}

/** Bytes of the request line a chunk starts with (all of the chunk if it has no line end); 0 if it does not start with one. */
function requestLineLength(packet: Buffer): number {
  if (!/^[A-Z]+ /.test(packet.subarray(0, 16).toString('latin1'))) return 0;
  const end = packet.indexOf('\n');
  return end < 0 ? packet.length : end;
}

/** Writes an answer straight to a socket that has no response object (any longer), then closes it once written. */
function answerOnSocket(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify(fail(message));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // Not left half open for a client that goes on sending (the server allows half-open sockets).
  (socket as Socket).destroySoon?.();
}

/**
 * Fastify's `clientErrorHandler`: the envelope instead of Node's or Fastify's
 * own bodies. As Node does, a connection whose answer has begun is only closed.
 */
export function clientErrorHandler(requestTimeoutMs: number) {
  return function answerClientError(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // The code only: the error's rawPacket holds the request's headers, API keys and cookies among them.
    this.log.debug({ code: error.code }, 'connection refused before routing');
    const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) return void socket.destroy();
    const { status, message } = connectionErrorAnswer(error, requestTimeoutMs);
    answerOnSocket(socket, status, message);
  };
}

/**
 * The two requests Node answers itself, with an empty body, when nobody
 * listens: an `Expect` other than `100-continue` (417) and `CONNECT` (the
 * connection closed unanswered). Both get the envelope.
 */
export function answerRequestsFastifyNeverSees(server: Server): void {
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify(fail('Expect: 100-continue is the only expectation this server meets'));
    response.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' }).end(body);
  });
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    // Node hands this socket over with no 'error' listener: a client that resets before the answer is
    // written would otherwise raise an uncaught ECONNRESET and end the process.
    socket.on('error', () => socket.destroy());
    answerOnSocket(socket, 400, 'CONNECT is not supported: Mailroom is not a proxy');
  });
}
