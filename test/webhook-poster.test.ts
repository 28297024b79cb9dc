import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { postWebhook, WEBHOOK_RESPONSE_BODY_LIMIT } from '../src/webhooks/webhook-poster.js';

// postWebhook against real HTTP servers on loopback: what a delivery attempt records.
describe('postWebhook', () => {
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function receiver(answer: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<number> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => answer(req, res, Buffer.concat(chunks).toString()));
    });
    server.on('connection', (socket) => sockets.add(socket));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  it('connects to the vetted address alone, whatever the name, and posts the body with its headers', async () => {
    const seen: { host?: string; path?: string; signature?: string; agent?: string; body?: string }[] = [];
    const port = await receiver((req, res, body) => {
      seen.push({ host: req.headers.host, path: req.url, signature: req.headers['webhook-signature'] as string, agent: req.headers['user-agent'], body });
      res.end('thanks');
    });
    // `pinned.invalid` resolves nowhere: the post can only arrive through the vetted address.
    const url = new URL(`http://pinned.invalid:${port}/hooks?source=mailroom`);
    for (let i = 0; i < 3; i++) {
      const result = await postWebhook('wh_pinned', url, ['127.0.0.1'], { 'content-type': 'application/json', 'webhook-signature': `v1,sig${i}` }, `{"n":${i}}`, 5_000);
      assert.deepEqual({ ...result, durationMs: 0 }, { status: 200, body: 'thanks', error: null, durationMs: 0 });
    }
    assert.deepEqual(
      seen,
      [0, 1, 2].map((i) => ({ host: `pinned.invalid:${port}`, path: '/hooks?source=mailroom', signature: `v1,sig${i}`, agent: 'Mailroom-Webhooks/1', body: `{"n":${i}}` })),
    );
  });

  it('records a non-2xx answer as it came, and does not follow a redirect', async () => {
    let posts = 0;
    const port = await receiver((_req, res) => {
      posts++;
      res.writeHead(302, { location: '/elsewhere' }).end('moved');
    });
    const result = await postWebhook('wh_redirect', new URL(`http://127.0.0.1:${port}/hooks`), ['127.0.0.1'], {}, '{}', 5_000);
    assert.deepEqual([result.status, result.body, result.error, posts], [302, 'moved', null, 1]);
  });

  it('keeps a NUL of the answer as U+FFFD, as the store can hold it', async () => {
    // PostgreSQL's text refuses U+0000: an attempt whose answer held one could not be recorded, and was posted again at every lease's end.
    const port = await receiver((_req, res) => res.end('ok\u0000ok'));
    const result = await postWebhook('wh_nul', new URL(`http://127.0.0.1:${port}/hooks`), ['127.0.0.1'], {}, '{}', 5_000);
    assert.deepEqual([result.status, result.body], [200, 'ok\uFFFDok']);
  });

  it(`keeps the first ${WEBHOOK_RESPONSE_BODY_LIMIT} bytes of a long answer and stops reading it`, async () => {
    const port = await receiver((_req, res) => {
      res.writeHead(500);
      // Far more than the limit, written in pieces: the reader must not wait for the end.
      const piece = 'x'.repeat(64 * 1024);
      const write = (left: number) => (left === 0 ? res.end() : res.write(piece, () => setImmediate(() => write(left - 1))));
      write(256);
    });
    const result = await postWebhook('wh_long', new URL(`http://127.0.0.1:${port}/hooks`), ['127.0.0.1'], {}, '{}', 5_000);
    assert.deepEqual([result.status, result.body, result.error], [500, 'x'.repeat(WEBHOOK_RESPONSE_BODY_LIMIT), null]);
  });

  it('gives up on a receiver that does not answer within the deadline', async () => {
    const port = await receiver(() => {
      // Never answers.
    });
    const result = await postWebhook('wh_silent', new URL(`http://127.0.0.1:${port}/hooks`), ['127.0.0.1'], {}, '{}', 300);
    assert.deepEqual([result.status, result.body, result.error], [null, null, 'No answer within 300 ms']);
    assert.ok(result.durationMs >= 290 && result.durationMs < 5_000, `gave up after ${result.durationMs} ms`);
  });

  it('says why a connection failed', async () => {
    const port = await receiver(() => {});
    const closed = servers.pop()!;
    await new Promise((resolve) => closed.close(resolve));
    const result = await postWebhook('wh_closed', new URL(`http://127.0.0.1:${port}/hooks`), ['127.0.0.1'], {}, '{}', 5_000);
    assert.equal(result.status, null);
    assert.match(result.error!, /ECONNREFUSED/);
  });
});
