/**
 * A workspace's templates through the dashboard API (dashboard/template-routes.ts): the services behind
 * /v1/templates, each route checking the user's role on the server (viewers read and preview, admins and
 * developers change), another workspace's ids answering 404, and the preview as a document under the
 * mail frame's own policy, made inert as a message's HTML is.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MemberRole } from '../src/db/schema.js';
import { dashboardRequest, signedInPerson } from './helpers/dashboard-client.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const VIEWER_REFUSED = { success: false, error: 'A viewer of this workspace cannot do this' };
const TEMPLATE = {
  name: 'Invoice ready',
  alias: 'invoice-ready',
  subject: 'Invoice {{number}}',
  html: '<meta http-equiv="refresh" content="0;url=https://elsewhere.example/"><p>Invoice {{number}} for {{customer}}</p>',
  variables: [{ key: 'number', type: 'number' }, { key: 'customer', type: 'string', fallback_value: 'you' }],
};

type Session = { cookie: string; csrf: string };

describe('templates in the dashboard API', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const member = (role: MemberRole, workspaceId = t.workspaceId): Promise<Session> => signedInPerson(t, workspaceId, role);
  const ws = (suffix: string, workspaceId = t.workspaceId) => `/workspaces/${workspaceId}/templates${suffix}`;
  const call = (session: Session, method: string, url: string, body?: unknown) => dashboardRequest(t, method, url, { ...session, body });

  it('lets a developer create, edit, publish, duplicate and delete, as /v1 does, and lists them with their total', async () => {
    const dev = await member('developer');
    const created = await call(dev, 'POST', ws(''), TEMPLATE);
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().data.id;
    const edited = await call(dev, 'PATCH', ws(`/${id}`), { subject: 'Your invoice {{number}}' });
    assert.deepEqual([edited.json().data.subject, edited.json().data.status], ['Your invoice {{number}}', 'draft']);
    assert.equal((await call(dev, 'POST', ws(`/${id}/publish`))).json().data.status, 'published');
    assert.deepEqual((await call(dev, 'GET', ws(`/${id}/versions`))).json().data.map((v: { version: number }) => v.version), [1]);
    const copy = await call(dev, 'POST', ws('/invoice-ready/duplicate'));
    assert.equal(copy.statusCode, 201);
    const list = (await call(dev, 'GET', ws(''))).json().data;
    assert.deepEqual([list.total, list.templates.map((x: { name: string }) => x.name)], [2, ['Invoice ready (copy)', 'Invoice ready']]);
    assert.equal((await call(dev, 'DELETE', ws(`/${copy.json().data.id}`))).statusCode, 200);
    assert.equal((await t.call('GET', '/v1/templates')).json().data.length, 1, 'the same templates as /v1');
  });

  it('lets a viewer read, render and preview, and refuses every change on the server', async () => {
    const viewer = await member('viewer');
    assert.equal((await call(viewer, 'GET', ws('/invoice-ready'))).json().data.alias, 'invoice-ready');
    assert.deepEqual((await call(viewer, 'POST', ws('/invoice-ready/render'), { variables: { number: 7 } })).json().data, { subject: 'Your invoice 7', html: TEMPLATE.html.replace('{{number}}', '7').replace('{{customer}}', 'you'), text: 'Invoice 7 for you' });
    for (const [method, suffix, body] of [
      ['POST', '', TEMPLATE],
      ['PATCH', '/invoice-ready', { name: 'Renamed' }],
      ['POST', '/invoice-ready/publish', undefined],
      ['POST', '/invoice-ready/duplicate', undefined],
      ['DELETE', '/invoice-ready', undefined],
    ] as const) {
      const res = await call(viewer, method, ws(suffix), body);
      assert.deepEqual([res.statusCode, res.json()], [403, VIEWER_REFUSED], `${method} ${suffix}`);
    }
    assert.equal((await t.call('GET', '/v1/templates/invoice-ready')).json().data.name, 'Invoice ready');
  });

  it("answers another workspace's template as not found", async () => {
    const other = await t.newWorkspace('Elsewhere');
    const stranger = await member('admin', other.workspaceId);
    const res = await call(stranger, 'GET', ws('/invoice-ready', other.workspaceId));
    assert.deepEqual([res.statusCode, res.json()], [404, { success: false, error: 'Template not found' }]);
  });

  it('serves the preview under the frame policy, its meta refresh made inert, and its refusals under the same policy', async () => {
    const viewer = await member('viewer');
    const preview = await call(viewer, 'GET', ws(`/invoice-ready/preview?variables=${encodeURIComponent(JSON.stringify({ number: 42, customer: 'Ada' }))}`));
    assert.equal(preview.statusCode, 200);
    assert.match(preview.headers['content-type'] as string, /^text\/html/);
    assert.equal(preview.headers['content-security-policy'], "default-src 'none'; img-src data: cid:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox");
    assert.equal(preview.headers['cache-control'], 'private, no-store');
    assert.equal(preview.body, '<x-inert-meta http-equiv="refresh" content="0;url=https://elsewhere.example/"><p>Invoice 42 for Ada</p>');
    const remote = await call(viewer, 'GET', ws('/invoice-ready/preview?remote_images=1&version=1&variables=%7B%22number%22%3A1%7D'));
    assert.match(remote.headers['content-security-policy'] as string, /img-src data: cid: https: http:/);

    for (const [query, error] of [
      ['', 'template variable "number" is missing'],
      ['?variables=%7Bnot%20json', 'variables must be a JSON object'],
      ['?variables=%5B1%5D', 'variables must be a JSON object'],
      [`?variables=${encodeURIComponent('{"number":"seven","extra":1}')}`, 'template variable "extra" is not declared; template variable "number" must be a number'],
      ['?version=9&variables=%7B%22number%22%3A1%7D', 'template "invoice-ready" has no published version 9'],
    ]) {
      const res = await call(viewer, 'GET', ws(`/invoice-ready/preview${query}`));
      assert.deepEqual([res.statusCode, res.json().error], [400, error], query);
      assert.match(res.headers['content-security-policy'] as string, /^default-src 'none'.*sandbox$/, 'a refusal is under the frame policy too');
    }
  });
});
