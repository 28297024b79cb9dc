import { once } from 'node:events';
import { createServer } from 'node:net';

/** A loopback TCP port that was free a moment ago: for a server to start on, or to find nothing listening. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
