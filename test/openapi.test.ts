/**
 * The OpenAPI 3.1 document (issue 17, point 1): generated from the route
 * schemas, valid by an OpenAPI validator, covering every /v1 route with its
 * responses, served without a key; the drift check of every answer the suite
 * receives (helpers/openapi-drift.ts) shown to catch drift; and the reference
 * page at /docs in real Chromium, from local assets only.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import swagger from '@fastify/swagger';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { apiResponses } from '../src/openapi/index.js';
import { OPENAPI_PATH } from '../src/openapi/register.js';
import { SES_EVENTS_PATH } from '../src/ses-events/index.js';
import { openApiDocument } from '../src/openapi/document.js';
import { launchBrowser, type TestBrowser } from './helpers/browser.js';
import { checkResponsesAgainstOpenApi, openApiPath, responseProblem } from './helpers/openapi-drift.js';
import { routesOf } from './helpers/routes.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';

type Operation = { operationId?: string; summary?: string; security?: unknown[]; responses: Record<string, { content?: object; headers?: Record<string, { required?: boolean }> }> };
type Document = { openapi: string; info: { version: string }; paths: Record<string, Record<string, Operation>>; security: unknown[] };

describe('the OpenAPI document', () => {
  let t: TestApp;
  let document: Document;

  before(async () => {
    t = await createTestApp();
    const res = await t.call('GET', OPENAPI_PATH, { key: null });
    assert.equal(res.statusCode, 200, res.body);
    document = res.json();
  });
  after(() => t?.close());

  it('is served without a key, without rate-limit headers, and is valid OpenAPI 3.1', async () => {
    const res = await t.call('GET', OPENAPI_PATH, { key: null });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^application\/json/);
    assert.equal(res.headers['x-ratelimit-limit'], undefined, 'not behind the API guard, like the health check');
    assert.equal(document.openapi, '3.1.0');
    assert.equal(document.info.version, (await import('../package.json', { with: { type: 'json' } })).default.version);
    const result = await new Validator().validate(structuredClone(document) as unknown as Parameters<Validator['validate']>[0]);
    assert.deepEqual(result, { valid: true });
  });

  it('has every /v1 route Fastify knows, each with an operationId, a summary and its responses, and nothing else', () => {
    const routes = routesOf(t.app).filter(([method, path]) => path.startsWith('/v1/') && method !== 'HEAD');
    assert.ok(routes.length >= 28, `routes found: ${JSON.stringify(routes)}`);
    const documented = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    assert.deepEqual(documented.sort(), routes.map(([method, path]) => `${method} ${openApiPath(path)}`).sort(), 'the /v1 routes, and only they');
    const ids = new Set<string>();
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const name = `${method.toUpperCase()} ${path}`;
        assert.match(operation.operationId ?? '', /^[a-z][A-Za-z]+$/, name);
        assert.ok(!ids.has(operation.operationId!), `${name}: operationId ${operation.operationId} is unique`);
        ids.add(operation.operationId!);
        assert.ok(operation.summary, `${name} has a summary`);
        const statuses = Object.keys(operation.responses);
        assert.ok(statuses.some((s) => /^2\d\d$/.test(s)), `${name} documents its success`);
        for (const status of statuses) assert.ok(operation.responses[status]!.content, `${name} ${status} has a body schema`);
        const guarded = path !== '/v1/health/check' && path !== OPENAPI_PATH && path !== SES_EVENTS_PATH;
        assert.deepEqual(operation.security, guarded ? undefined : [], `${name}: the key is ${guarded ? 'required (globally)' : 'not needed'}`);
        if (!guarded) continue;
        for (const status of ['400', '401', '403', '429', '500', '503']) assert.ok(statuses.includes(status), `${name} documents ${status}`);
        assert.equal(operation.responses['429']!.headers?.['Retry-After']?.required, true, `${name} 429 has Retry-After`);
        assert.equal(operation.responses[statuses[0]!]!.headers?.['X-RateLimit-Remaining']?.required, true, `${name} success has the rate-limit headers`);
      }
    }
    assert.deepEqual(document.security, [{ apiKey: [] }]);
  });

  it('leaves the dashboard, /docs and anything under /compat out', () => {
    assert.ok(Object.keys(document.paths).every((path) => path.startsWith('/v1/')), Object.keys(document.paths).join(', '));
  });

  it('is the same bytes on every run of npm run openapi, and the same as served', async () => {
    // The document is over spawnSync's default 1 MiB of output: a larger buffer, or the run is cut off (status null).
    const run = () => spawnSync(process.execPath, ['--import', 'tsx', 'scripts/openapi.ts'], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    const [first, second] = [run(), run()];
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stdout, second.stdout);
    assert.deepEqual(JSON.parse(first.stdout), document);
    assert.deepEqual(await openApiDocument(), document);
  });

  it('keeps every answer as it was: fields the schemas do not name are not dropped', async () => {
    // Response schemas would make Fastify serialise with fast-json-stringify, which drops unknown properties.
    const sent = await t.call('POST', '/v1/send', { body: sendBody({ tags: [{ name: 'plan', value: 'pro' }, { name: '42', value: 'x' }] }) });
    assert.equal(sent.statusCode, 200, sent.body);
    const detail = await t.call('GET', `/v1/messages/${sent.json().data.message_id}`);
    assert.deepEqual(detail.json().data.tags, { 42: 'x', plan: 'pro' });
  });
});

describe('the drift check of every answer', () => {
  let document: object;
  before(async () => {
    document = await openApiDocument();
  });

  const answer = (overrides: Partial<Parameters<typeof responseProblem>[1]> = {}) => ({
    method: 'GET',
    route: '/v1/domains/:id',
    status: 404,
    headers: { 'x-ratelimit-limit': 60, 'x-ratelimit-remaining': 59, 'x-ratelimit-reset': 1_800_000_000 },
    body: JSON.stringify({ success: false, error: 'Domain not found' }),
    ...overrides,
  });

  it('passes an answer the document describes', () => {
    assert.equal(responseProblem(document, answer()), null);
  });

  it('names the route and status of an undocumented status', () => {
    assert.match(responseProblem(document, answer({ status: 418 })) ?? '', /GET \/v1\/domains\/\{id\} answered 418, a status the OpenAPI document does not list/);
  });

  it('names the field of a wrong-typed or undocumented field, a missing header, and an unknown route', () => {
    const body = JSON.stringify({ success: true, data: { id: 42, domain: 'a.example', status: 'pending', created_at: 'now', verified_at: null, last_checked_at: null, error: null, records: [] } });
    assert.match(responseProblem(document, answer({ status: 200, body })) ?? '', /\/data\/id must be string/);
    const extra = JSON.stringify({ success: false, error: 'x', stack: 'at …' });
    assert.match(responseProblem(document, answer({ body: extra })) ?? '', /must NOT have additional properties.*stack/);
    assert.match(responseProblem(document, answer({ headers: {} })) ?? '', /without the header X-RateLimit-Limit/);
    assert.match(responseProblem(document, answer({ route: '/v1/nowhere' })) ?? '', /GET \/v1\/nowhere is not in the OpenAPI document/);
  });

  it('fails the request of an app whose answer drifts, and its close', async () => {
    const app = Fastify();
    app.setSerializerCompiler(() => (data) => JSON.stringify(data));
    await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } } });
    app.get('/v1/thing', { schema: { response: apiResponses({ 200: Type.Object({ n: Type.Integer() }) }) } }, async (_request, reply) => {
      for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) reply.header(name, 1);
      return { success: true, data: { n: 'not a number' } };
    });
    const drift = checkResponsesAgainstOpenApi(app);
    await app.ready();
    const res = await app.inject({ url: '/v1/thing' });
    assert.equal(res.statusCode, 500);
    assert.match(res.json().error, /^OpenAPI drift: GET \/v1\/thing answered 200 with a body the document does not allow: \/data\/n must be integer/);
    assert.throws(() => drift.assertNone(), /drifted from the OpenAPI document/);
    await app.close();
  });
});

describe('the API reference at /docs', () => {
  let t: TestApp;
  let base: string;
  let chromium: TestBrowser;

  before(async () => {
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    chromium = await launchBrowser();
  });
  after(async () => {
    await chromium?.close();
    await t?.close();
  });

  it('is served from local files with a CSP that allows nothing from elsewhere, without a key', async () => {
    const page = await fetch(`${base}/docs`);
    assert.equal(page.status, 200);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /https?:|\*/, 'no other origin');
    const html = await page.text();
    assert.doesNotMatch(html, /https?:\/\//, 'no CDN');
    const bundle = await fetch(`${base}/docs/static/swagger-ui-bundle.js`);
    assert.equal(bundle.status, 200);
    assert.match(bundle.headers.get('content-type') ?? '', /javascript/);
  });

  it('lists the operations in Chromium with no console error and no request beyond this server', async () => {
    const requests: string[] = [];
    chromium.page.on('request', (request) => requests.push(request.url()));
    await chromium.page.goto(`${base}/docs`);
    await chromium.page.getByText('/v1/send/batch', { exact: true }).waitFor();
    for (const path of ['/v1/send', '/v1/send/logs', '/v1/domains/{id}/verify', '/v1/health/check']) {
      assert.ok(await chromium.page.getByText(path, { exact: true }).first().isVisible(), path);
    }
    assert.ok(await chromium.page.getByText('Send an e-mail').first().isVisible());
    await chromium.shoot('docs');
    await chromium.page.getByText('Send an e-mail').first().click();
    await chromium.page.getByText('Idempotent-Replayed').first().waitFor();
    await chromium.shoot('docs-send');
    assert.deepEqual(chromium.problems, []);
    const elsewhere = requests.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith('data:'));
    assert.deepEqual(elsewhere, [], 'every request went to this server');
  });
});
