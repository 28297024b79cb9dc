/**
 * A message's attachments through the dashboard API
 * (dashboard/message-routes.ts): each one's bytes as sent, saved rather than
 * shown (attachment disposition with the name in UTF-8, nosniff, a sandbox
 * policy), for every role of the workspace and no one else; once the
 * retention pruner drops the content, a 404 saying so.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { attachmentDisposition } from '../src/http/content-disposition.js';
import { createRetentionPruner } from '../src/retention/index.js';
import { dashboardRequest, signedInPerson } from './helpers/dashboard-client.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';

const DAY_MS = 86_400_000;
const PDF = randomBytes(70_000);
const LOGO = randomBytes(3_000);
const PAGE = Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>');
/** A name with what would end a quoted string or add a parameter, and letters outside ASCII. */
const AWKWARD = 'Rechnung "März"; x=1 ✓.pdf';

describe('attachments in the dashboard API', () => {
  let t: TestApp;
  let viewer: Awaited<ReturnType<typeof signedInPerson>>;
  let outsider: Awaited<ReturnType<typeof signedInPerson>>;
  let outsiderWorkspace = '';
  let id = '';
  const path = (n: number | string, workspace = t.workspaceId) => `/workspaces/${workspace}/messages/${id}/attachments/${n}`;

  before(async () => {
    t = await createTestApp({ WORKER_POLL_MS: '20' }, { worker: true });
    viewer = await signedInPerson(t, t.workspaceId, 'viewer');
    outsiderWorkspace = (await t.newWorkspace()).workspaceId;
    outsider = await signedInPerson(t, outsiderWorkspace, 'admin');
    const attachments = [
      { filename: AWKWARD, content: PDF.toString('base64') },
      { filename: 'logo.png', content: LOGO.toString('base64'), content_id: '<logo>' },
      { filename: 'page.html', content: PAGE.toString('base64'), content_type: 'text/html; charset=utf-8' },
    ];
    const sent = await t.call('POST', '/v1/send', { body: sendBody({ html: '<p><img src="cid:logo"></p>', attachments }) });
    assert.equal(sent.statusCode, 200, sent.body);
    id = sent.json().data.message_id;
  });
  after(() => t.close());

  it('answers each attachment’s bytes as sent, by its place in the detail’s list, to every role', async () => {
    const listed = (await dashboardRequest(t, 'GET', `/workspaces/${t.workspaceId}/messages/${id}`, viewer)).json().data.attachments;
    assert.deepEqual(listed.map((a: { filename: string }) => a.filename), [AWKWARD, 'logo.png', 'page.html']);
    for (const [n, bytes, type] of [[0, PDF, 'application/pdf'], [1, LOGO, 'image/png'], [2, PAGE, 'text/html; charset=utf-8']] as const) {
      const res = await dashboardRequest(t, 'GET', path(n), viewer);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], type, `attachment ${n} keeps its type`);
      assert.ok(res.rawPayload.equals(bytes), `attachment ${n}: the same bytes`);
      assert.equal(res.headers['content-length'], String(bytes.length));
    }
  });

  it('is saved, never shown: attachment disposition with the name in UTF-8, nosniff, and a sandbox with nothing allowed', async () => {
    const res = await dashboardRequest(t, 'GET', path(0), viewer);
    assert.equal(res.headers['content-disposition'], `attachment; filename="Rechnung _M_rz_; x=1 _.pdf"; filename*=UTF-8''Rechnung%20%22M%C3%A4rz%22%3B%20x%3D1%20%E2%9C%93.pdf`);
    const encoded = /filename\*=UTF-8''(.*)$/.exec(String(res.headers['content-disposition']))![1]!;
    assert.equal(decodeURIComponent(encoded), AWKWARD);
    const page = await dashboardRequest(t, 'GET', path(2), viewer);
    assert.match(String(page.headers['content-disposition']), /^attachment; /, 'an HTML file is a download');
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(page.headers['content-security-policy'], "default-src 'none'; sandbox", 'opened anyway, it runs nothing and is no page of the dashboard');
    assert.equal(page.headers['cache-control'], 'private, no-store');
  });

  it('writes no file name into the header as more than one parameter, whatever it holds', () => {
    for (const name of ['a\r\nSet-Cookie: x=1.txt', 'a"; filename="evil.html', "a'; b=%41.txt", 'ünïcödé\u2028.txt']) {
      const header = attachmentDisposition(name);
      assert.doesNotMatch(header, /[\r\n\u2028]/, name);
      const [fallback, star] = /^attachment; filename="([^"]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+\-.^_`|~%]*)$/.exec(header)!.slice(1);
      assert.ok(fallback !== undefined && star !== undefined, `${name}: ${header}`);
      assert.equal(decodeURIComponent(star), name, `${name}: filename* gives it back whole`);
    }
  });

  it("answers 404 for another workspace's message, past the last attachment, and 401 without a session", async () => {
    const theirs = await dashboardRequest(t, 'GET', path(0, outsiderWorkspace), outsider);
    assert.deepEqual([theirs.statusCode, theirs.json()], [404, { success: false, error: 'Message not found' }]);
    const ours = await dashboardRequest(t, 'GET', path(0), outsider);
    assert.deepEqual([ours.statusCode, ours.json()], [404, { success: false, error: 'Workspace not found' }]);
    const past = await dashboardRequest(t, 'GET', path(3), viewer);
    assert.deepEqual([past.statusCode, past.json().error], [404, 'Attachment not found']);
    assert.equal(past.headers['content-security-policy'], "default-src 'none'; sandbox", 'an error answer is under the same policy');
    assert.equal((await dashboardRequest(t, 'GET', path('01'), viewer)).statusCode, 400, 'a place is a plain number');
    const signedOut = await dashboardRequest(t, 'GET', path(0));
    assert.deepEqual([signedOut.statusCode, signedOut.json().error], [401, 'Sign in first']);
  });

  it('says the content is no longer kept once the retention pruner dropped it', async () => {
    await waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', 'the message delivered');
    const round = await createRetentionPruner({ store: t.store, settings: { contentDays: 30, logDays: 90 }, logger: pino({ level: 'silent' }), now: () => Date.now() + 31 * DAY_MS, pauseMs: 0 }).runOnce();
    assert.equal(round.rows.messages_content, 1);
    const res = await dashboardRequest(t, 'GET', path(0), viewer);
    assert.equal(res.statusCode, 404);
    assert.match(res.json().error, /^Content expired on \d{4}-\d{2}-\d{2}: bodies, attachments and the message as handed over are kept for CONTENT_RETENTION_DAYS days$/);
  });
});
