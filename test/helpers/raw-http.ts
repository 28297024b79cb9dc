import { connect, type Socket } from 'node:net';

/** What came back on a raw connection by the time the server closed it. */
export interface RawAnswer {
  /** null when nothing (or no status line) came back. */
  status: number | null;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: string;
  /** From the connection's opening to its close by the server. */
  closedAfterMs: number;
}

export interface RawConnection {
  socket: Socket;
  /** Settles when the server closes the connection (or the client ends it), with everything received. */
  closed: Promise<RawAnswer>;
}

/**
 * A TCP connection to an HTTP server, for what no HTTP client sends: a
 * request written a byte at a time, a malformed one, one over the size limits.
 */
export async function rawConnection(origin: string): Promise<RawConnection> {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const openedAt = performance.now();
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // Writes after the server closed (EPIPE, ECONNRESET) are the client's problem, not the test's.
  socket.on('error', () => {});
  const closed = new Promise<RawAnswer>((resolve) =>
    socket.once('close', () => resolve({ ...parseAnswer(Buffer.concat(chunks).toString('utf8')), closedAfterMs: performance.now() - openedAt })),
  );
  return { socket, closed };
}

/** Writes `request` at once and waits for the answer: until the server closes, or (keep-alive) the client has all of it. */
export async function rawExchange(origin: string, request: string | Buffer): Promise<RawAnswer> {
  const { socket, closed } = await rawConnection(origin);
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('utf8');
    const { headers, body } = parseAnswer(received);
    const length = headers['content-length'];
    if (received.includes('\r\n\r\n') && length !== undefined && Buffer.byteLength(body) >= Number(length)) socket.end();
  });
  socket.write(request);
  return closed;
}

function parseAnswer(text: string): Omit<RawAnswer, 'closedAfterMs'> {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: status ? Number(status[1]) : null, headers, body: end < 0 ? '' : text.slice(end + 4) };
}
