/**
 * What the HTTP port answers to requests its routes never see, or see too
 * large: Node's parser refusing them (connection-errors.ts), URLs over the
 * API's length (request-limits.ts), numbers in query strings past what the
 * store can bind. Always an answer, never Node's or Fastify's own body: the
 * envelope, or a route's dialect where the route is known.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { URL_TOO_LONG } from '../src/http/request-limits.js';
import { MAX_URL_BYTES } from '../src/http/server-limits.js';
import { dashboardRequest, signedInPerson } from './helpers/dashboard-client.js';
import { listenOnLoopback } from './helpers/listening-app.js';
import { rawConnection, rawExchange, type RawAnswer } from './helpers/raw-http.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

function assertEnvelope(answer: RawAnswer, status: number, error: string | RegExp): void {
  assert.equal(answer.status, status, `answered ${answer.status}: ${answer.body}`);
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'success']);
  assert.equal(body.success, false);
  if (typeof error === 'string') assert.equal(body.error, error);
  else assert.match(String(body.error), error);
}

describe('the HTTP edge on a real socket', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await createTestApp();
    base = await listenOnLoopback(t);
  });
  after(() => t?.close());

  const get = (target: string, headers = '') => `GET ${target} HTTP/1.1\r\nHost: mailroom.test\r\n${headers}\r\n`;

  it('answers a URL over what the parser reads 414 in the envelope, under /compat/resend too, where no route is known yet', async () => {
    const long = 'a'.repeat(20_000);
    assertEnvelope(await rawExchange(base, get(`/v1/send/logs?tag=${long}`, `x-api-key: ${t.apiKey}\r\n`)), 414, URL_TOO_LONG);
    assertEnvelope(await rawExchange(base, get(`/compat/resend/domains?after=${long}`, `Authorization: Bearer ${t.apiKey}\r\n`)), 414, URL_TOO_LONG);
  });

  it('answers headers over 16 KiB 431 in the envelope', async () => {
    const answer = await rawExchange(base, get('/v1/send/logs', `x-api-key: ${t.apiKey}\r\nX-Filler: ${'b'.repeat(20_000)}\r\n`));
    assertEnvelope(answer, 431, "The request's headers are larger than 16 KiB, its request line included");
    // Many small headers add up the same way.
    const many = Array.from({ length: 400 }, (_, i) => `X-Filler-${i}: ${'c'.repeat(40)}\r\n`).join('');
    assertEnvelope(await rawExchange(base, get('/v1/send/logs', many)), 431, /headers are larger than 16 KiB/);
  });

  it('answers requests that are not HTTP/1.1 400 in the envelope, naming what is wrong', async () => {
    const cases: [string, RegExp][] = [
      ['FETCH / HTTP/1.1\r\nHost: mailroom.test\r\n\r\n', /^The request is not valid HTTP: Invalid method/],
      ['POST /v1/send HTTP/1.1\r\nHost: mailroom.test\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', /^The request is not valid HTTP: .*Transfer-Encoding/],
      ['GET /v1/send/logs HTTP/1.1\r\nHost: mailroom.test\r\nX-Bad: a\u0001b\r\n\r\n', /^The request is not valid HTTP: Invalid header value char/],
      ['POST /v1/send HTTP/1.1\r\nHost: mailroom.test\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /^The request is not valid HTTP: Invalid character in chunk size/],
      ['PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', /^HTTP\/2 without TLS is not spoken here/],
    ];
    for (const [request, error] of cases) assertEnvelope(await rawExchange(base, request), 400, error);
  });

  it('answers an Expect other than 100-continue 417 in the envelope, and still meets 100-continue', async () => {
    const refused = await rawExchange(base, `POST /v1/send HTTP/1.1\r\nHost: mailroom.test\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}`);
    assertEnvelope(refused, 417, 'Expect: 100-continue is the only expectation this server meets');

    const { socket, closed } = await rawConnection(base);
    socket.write(`POST /v1/api-keys HTTP/1.1\r\nHost: mailroom.test\r\nx-api-key: ${t.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
    await new Promise<void>((resolve) => socket.once('data', (chunk: Buffer) => (assert.match(chunk.toString(), /^HTTP\/1\.1 100 Continue/), resolve())));
    socket.write('{}');
    const answer = await closed;
    assert.match(answer.body, /"name is required"/);
  });

  it('answers CONNECT 400 in the envelope rather than closing unanswered', async () => {
    assertEnvelope(await rawExchange(base, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'), 400, 'CONNECT is not supported: Mailroom is not a proxy');
  });

  it('survives CONNECT requests whose clients reset the connection before the answer', async () => {
    // Written and reset at once: the answer then meets a reset socket, whose error nobody else listens for.
    for (let i = 0; i < 40; i++) {
      const { socket, closed } = await rawConnection(base);
      socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', () => socket.resetAndDestroy());
      await closed;
    }
    assertEnvelope(await rawExchange(base, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'), 400, 'CONNECT is not supported: Mailroom is not a proxy');
  });

  it('answers an HTTP/1.1 request without Host 400 in the envelope; HTTP/1.0 needs none', async () => {
    const hostless = await rawExchange(base, `GET /v1/send/logs HTTP/1.1\r\nx-api-key: ${t.apiKey}\r\n\r\n`);
    assertEnvelope(hostless, 400, 'The Host header is required in HTTP/1.1');
    const old = await rawExchange(base, `GET /v1/send/logs HTTP/1.0\r\nx-api-key: ${t.apiKey}\r\n\r\n`);
    assert.equal(old.status, 200, old.body);
    assert.deepEqual(JSON.parse(old.body), { success: true, data: [] });
  });
});

describe('URLs over the API’s length and numbers past the store’s', () => {
  let t: TestApp;
  let dashboard: { cookie: string };
  before(async () => {
    t = await createTestApp();
    dashboard = await signedInPerson(t, t.workspaceId, 'admin');
  });
  after(() => t?.close());

  const justOver = 'a'.repeat(MAX_URL_BYTES);

  it('answers a URL just over 8 KiB 414: in the envelope under /v1 and /dashboard/api, in Resend’s words under /compat/resend', async () => {
    const v1 = await t.call('GET', `/v1/send/logs?tag=${justOver}`);
    assert.equal(v1.statusCode, 414);
    assert.deepEqual(v1.json(), { success: false, error: URL_TOO_LONG });
    assert.ok(v1.headers['x-ratelimit-remaining'] !== undefined, 'counted against the key like any request');

    const unknown = await t.call('GET', `/v1/no-such-route?q=${justOver}`);
    assert.deepEqual([unknown.statusCode, unknown.json()], [414, { success: false, error: URL_TOO_LONG }]);

    const resend = await t.app.inject({ method: 'GET', url: `/compat/resend/domains?after=${justOver}`, headers: { authorization: `Bearer ${t.apiKey}` } });
    assert.equal(resend.statusCode, 414);
    assert.deepEqual(resend.json(), { statusCode: 414, name: 'validation_error', message: URL_TOO_LONG });

    const dash = await dashboardRequest(t, 'GET', `/workspaces/${t.workspaceId}/logs?tag=${justOver}`, dashboard);
    assert.deepEqual([dash.statusCode, dash.json()], [414, { success: false, error: URL_TOO_LONG }]);

    // At the limit, the same request is read.
    const at = await t.call('GET', `/v1/send/logs?tag=${'a'.repeat(MAX_URL_BYTES - '/v1/send/logs?tag='.length)}`);
    assert.equal(at.statusCode, 400, 'read, and refused by the schema (a tag longer than 600 characters)');
  });

  const HUGE = ['99999999999999999999', '9007199254740992', '1e400'];

  it('answers an offset past 2^53 − 1 400 on every paged list, /v1 and the dashboard, and reads one at it', async () => {
    const lists = ['/v1/send/logs', '/v1/suppressions'];
    const dashboardLists = [`/workspaces/${t.workspaceId}/logs`, `/workspaces/${t.workspaceId}/suppressions`];
    for (const offset of HUGE) {
      for (const list of lists) {
        const res = await t.call('GET', `${list}?offset=${offset}`);
        assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error: 'offset must be at most 9007199254740991' }], `${list}?offset=${offset}`);
      }
      for (const list of dashboardLists) {
        const res = await dashboardRequest(t, 'GET', `${list}?offset=${offset}`, dashboard);
        assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error: 'offset must be at most 9007199254740991' }], `${list}?offset=${offset}`);
      }
    }
    await t.call('POST', '/v1/suppressions', { body: { email: 'kept@example.com' } });
    for (const list of lists) {
      const res = await t.call('GET', `${list}?offset=${Number.MAX_SAFE_INTEGER}`);
      assert.deepEqual([res.statusCode, res.json()], [200, { success: true, data: [] }], list);
    }
    for (const list of dashboardLists) {
      const res = await dashboardRequest(t, 'GET', `${list}?offset=${Number.MAX_SAFE_INTEGER}`, dashboard);
      assert.equal(res.statusCode, 200, res.body);
    }
  });

  it('answers a limit past its bound 400 (Resend’s 422 under /compat/resend), however many digits it has', async () => {
    for (const limit of HUGE) {
      for (const list of ['/v1/send/logs', '/v1/suppressions']) {
        const res = await t.call('GET', `${list}?limit=${limit}`);
        assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error: 'limit must be at most 100' }]);
      }
      for (const list of ['/compat/resend/domains', '/compat/resend/api-keys']) {
        const res = await t.app.inject({ method: 'GET', url: `${list}?limit=${limit}`, headers: { authorization: `Bearer ${t.apiKey}` } });
        assert.deepEqual([res.statusCode, res.json()], [422, { statusCode: 422, name: 'validation_error', message: 'limit must be at most 100' }]);
      }
    }
  });
});
