/**
 * The HTTP port's timeouts (src/http/server-limits.ts) on a real listening
 * server, with clients that write on a real socket as slowly as they like.
 * The cases run side by side: each waits out a timeout of 10 s or more.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SEND_MEMORY_BUDGET } from '../src/sending/send-memory.js';
import { startMetricsListener } from '../src/observability/metrics-listener.js';
import { CONNECTIONS_CHECK_INTERVAL_MS, HEADERS_TIMEOUT_MS } from '../src/http/server-limits.js';
import { listenOnLoopback } from './helpers/listening-app.js';
import { rawConnection, type RawAnswer } from './helpers/raw-http.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';

/** A short request timeout for the app that shows it (HTTP_REQUEST_TIMEOUT_MS), still above the headers timeout. */
const SHORT_REQUEST_TIMEOUT_MS = 12_000;
/** What a machine shared with other test runs may add to a timer's due time. */
const SLACK_MS = 1_500;

/** Writes `piece()` every second until the connection closes. */
function drip(socket: import('node:net').Socket, piece: () => string | undefined): () => void {
  const timer = setInterval(() => {
    const next = piece();
    if (next !== undefined && socket.writable) socket.write(next);
  }, 1_000);
  return () => clearInterval(timer);
}

function assertTimedOut(answer: RawAnswer, timeoutMs: number, requestTimeoutMs: number): void {
  assert.equal(answer.status, 408, `answered ${answer.status}: ${answer.body}`);
  assert.deepEqual(JSON.parse(answer.body), {
    success: false,
    error: `The request did not arrive in time: its headers are read within ${HEADERS_TIMEOUT_MS / 1000} s, all of it within ${requestTimeoutMs / 1000} s`,
  });
  assert.ok(answer.closedAfterMs >= timeoutMs - 100, `cut off after ${answer.closedAfterMs} ms, before the ${timeoutMs} ms timeout`);
  const latest = timeoutMs + CONNECTIONS_CHECK_INTERVAL_MS + SLACK_MS;
  assert.ok(answer.closedAfterMs <= latest, `cut off after ${Math.round(answer.closedAfterMs)} ms, later than ${latest} ms`);
}

describe('the HTTP timeouts on a real socket', { concurrency: true }, () => {
  let t: TestApp;
  let base: string;
  let short: TestApp;
  let shortBase: string;

  before(async () => {
    [t, short] = await Promise.all([createTestApp(), createTestApp({ HTTP_REQUEST_TIMEOUT_MS: String(SHORT_REQUEST_TIMEOUT_MS) })]);
    [base, shortBase] = await Promise.all([listenOnLoopback(t), listenOnLoopback(short)]);
  });
  after(async () => {
    await Promise.all([t?.close(), short?.close()]);
  });

  it('cuts off a client sending its headers a byte a second within the headers timeout, with a 408 envelope', async (context) => {
    const { socket, closed } = await rawConnection(base);
    socket.write('GET /v1/health/check HTTP/1.1\r\nHost: mailroom.test\r\nX-Slow: ');
    const stop = drip(socket, () => 'a');
    const answer = await closed;
    stop();
    assertTimedOut(answer, HEADERS_TIMEOUT_MS, t.config.httpRequestTimeoutMs);
    context.diagnostic(`slow headers: cut off after ${Math.round(answer.closedAfterMs)} ms`);
  });

  it('cuts off a slow client of the METRICS_PORT listener within the same headers timeout', async () => {
    const listener = await startMetricsListener('127.0.0.1', 0, t.services.metrics!, undefined);
    try {
      const { socket, closed } = await rawConnection(`http://127.0.0.1:${listener.port}`);
      socket.write('GET /metrics HTTP/1.1\r\nHost: mailroom.test\r\nX-Slow: ');
      const stop = drip(socket, () => 'a');
      const answer = await closed;
      stop();
      assert.equal(answer.status, 408, answer.body);
      assert.ok(answer.closedAfterMs >= HEADERS_TIMEOUT_MS - 100 && answer.closedAfterMs <= HEADERS_TIMEOUT_MS + CONNECTIONS_CHECK_INTERVAL_MS + SLACK_MS, `cut off after ${answer.closedAfterMs} ms`);
    } finally {
      await listener.close();
    }
  });

  it('reads an honest body that takes longer than the headers timeout to arrive, and answers it', async () => {
    const body = JSON.stringify(sendBody());
    const pieces = 13;
    const size = Math.ceil(body.length / pieces);
    const { socket, closed } = await rawConnection(base);
    socket.write(
      `POST /v1/send HTTP/1.1\r\nHost: mailroom.test\r\nx-api-key: ${t.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
    );
    let sent = 0;
    const stop = drip(socket, () => (sent < body.length ? body.slice(sent, (sent += size)) : undefined));
    const answer = await closed;
    stop();
    assert.equal(answer.status, 200, answer.body);
    assert.equal(JSON.parse(answer.body).data.status, 'sent');
    assert.ok(answer.closedAfterMs > HEADERS_TIMEOUT_MS + CONNECTIONS_CHECK_INTERVAL_MS, `the body took only ${answer.closedAfterMs} ms`);
  });

  it('answers 408 in the envelope once a request has taken HTTP_REQUEST_TIMEOUT_MS, however steadily its body comes', async () => {
    const { socket, closed } = await rawConnection(shortBase);
    socket.write(`POST /v1/send HTTP/1.1\r\nHost: mailroom.test\r\nx-api-key: ${short.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"to":"`);
    const stop = drip(socket, () => 'a');
    const answer = await closed;
    stop();
    assertTimedOut(answer, SHORT_REQUEST_TIMEOUT_MS, SHORT_REQUEST_TIMEOUT_MS);
  });

  it('tells a large send that waited its turn for the body budget past the request timeout so (408), and gives its place back', async () => {
    // Every byte of the budget taken, as by two 70 MiB sends being read: a 2 MiB send waits, unread.
    const release = await short.services.sendMemory.acquire(SEND_MEMORY_BUDGET);
    try {
      const body = JSON.stringify(sendBody({ text: 'x'.repeat(2 * 1024 * 1024) }));
      const { socket, closed } = await rawConnection(shortBase);
      socket.write(
        `POST /v1/send HTTP/1.1\r\nHost: mailroom.test\r\nx-api-key: ${short.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
      );
      socket.write(body);
      await waitFor(() => short.services.sendMemory.state().waiting === 1, 'the send to wait for the body budget');
      assertTimedOut(await closed, SHORT_REQUEST_TIMEOUT_MS, SHORT_REQUEST_TIMEOUT_MS);
      await waitFor(() => short.services.sendMemory.state().waiting === 0, 'the abandoned send to leave the queue');
    } finally {
      release();
    }
  });
});
