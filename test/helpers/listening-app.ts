import type { AddressInfo } from 'node:net';
import type { TestApp } from './test-app.js';

/** Makes the test app listen on a free loopback port, as `serve` does, and answers its base URL: for clients that speak real HTTP. */
export async function listenOnLoopback(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}
