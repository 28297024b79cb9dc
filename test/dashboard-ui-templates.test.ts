/**
 * The Templates pages in Chromium against a real `mailroom serve`: a template
 * is created from the list and opens in its editor; what is typed is saved as
 * the draft and shown in the preview, rendered with the values typed into the
 * form built from its declaration, in a sandboxed frame that runs nothing and
 * loads nothing remote until asked; a syntax error is refused with its line
 * and column and nothing is saved; publishing makes version 1, a later edit a
 * draft whose diff against it shows; duplicate and delete; a test goes to the
 * signed-in user as the preview shows it; a viewer reads and changes nothing.
 * Screenshots at 1440 and 390 pixels wide go to MAILROOM_SCREENSHOTS when it is set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { createMember, createWorkspace, signInOnPage, v1Caller } from './helpers/dashboard-rig.js';
import { layoutProblemsAtBothWidths } from './helpers/layout-check.js';
import { startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const PASSWORD = 'a long enough password';
const ADMIN = 'grace.hopper@compilers-and-cobol.example';
const VIEWER = 'read-only.auditor@compilers-and-cobol.example';
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const REMOTE_IMAGE = 'http://192.0.2.7/brand/logo.png';
/** Refusals by the frame's policy and sandbox, in the console: the evidence, not a fault. */
const REFUSAL = /violates the following Content Security Policy directive|frame is sandboxed/;
const HTML = [
  '<h1 id="greeting">Hello {{first_name}}</h1>',
  `<p>Your order <strong id="order">#{{order_number}}</strong> is on its way. <img src="${REMOTE_IMAGE}" alt="Logo"></p>`,
  '<script>parent.document.title = "pwned"; window.__ran = 1;</script>',
].join('\n');

describe('the Templates pages in Chromium', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  let chromium: TestBrowser;
  let page: Page;
  let v1: ReturnType<typeof v1Caller>;
  let templateId = '';
  const remote: string[] = [];
  const provoked: number[] = [];

  const frame = async (): Promise<Frame> => (await (await page.locator('iframe.mail-frame').elementHandle())!.contentFrame())!;
  const saved = () => page.getByRole('status').filter({ hasText: 'Draft saved' }).waitFor();

  before(async () => {
    store = await freshStore();
    server = await startServe({ ...store.env, WORKER_POLL_MS: '20' });
    const { workspaceId, apiKey } = createWorkspace(store.env, 'Compilers & COBOL Ltd');
    createMember(store.env, workspaceId, ADMIN, 'admin', PASSWORD);
    createMember(store.env, workspaceId, VIEWER, 'viewer', PASSWORD);
    v1 = v1Caller(server.base, apiKey);
    chromium = await launchBrowser();
    page = chromium.page;
    await page.context().route(
      (url) => !url.href.startsWith(`${server.base}/`),
      (route) => {
        remote.push(route.request().url());
        return route.request().url().replace(/^https/, 'http') === REMOTE_IMAGE ? route.fulfill({ contentType: 'image/png', body: PIXEL }) : route.abort();
      },
    );
    await signInOnPage(page, server.base, ADMIN, PASSWORD);
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await store?.drop();
  });

  it('lists Templates after Upstreams, creates one from the list and opens it in its editor', async () => {
    const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    assert.equal(nav.indexOf('Templates'), nav.indexOf('Upstreams') + 1, nav.join(', '));
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.getByText('No templates yet. Create one above.').waitFor();
    await page.getByLabel('Name').fill('Order shipped');
    await page.getByLabel('Alias (optional)').fill('order-shipped');
    await page.getByRole('button', { name: 'Create and edit' }).click();
    await page.getByRole('heading', { name: 'Order shipped', level: 1 }).waitFor();
    templateId = new URL(page.url()).pathname.split('/')[2]!;
    assert.match(templateId, /^tpl_/);
    assert.equal((await v1('GET', '/v1/templates/order-shipped')).body.data.id, templateId);
    await page.getByText('Draft', { exact: true }).first().waitFor();
  });

  it('saves what is typed as the draft and previews it with the values typed, in a frame that runs nothing and loads nothing remote until asked', async () => {
    await page.getByRole('button', { name: 'Add a variable' }).click();
    await page.getByRole('group', { name: 'Variable 2' }).getByLabel('Key').fill('order_number');
    await page.getByRole('group', { name: 'Variable order_number' }).getByLabel('Type').selectOption('number');
    await page.getByLabel('Subject').fill('Order #{{order_number}} has shipped');
    await page.getByLabel('HTML', { exact: true }).fill(HTML);
    await saved();
    const draft = (await v1('GET', `/v1/templates/${templateId}`)).body.data;
    assert.deepEqual([draft.html, draft.subject, draft.variables.map((v: { key: string; type: string }) => `${v.key}:${v.type}`)], [HTML, 'Order #{{order_number}} has shipped', ['first_name:string', 'order_number:number']]);

    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByLabel('first_name').fill('Grace');
    await preview.getByLabel('order_number').fill('4096');
    await preview.getByText('Order #4096 has shipped').waitFor();
    await waitFor(async () => (await (await frame()).locator('#order').textContent().catch(() => null)) === '#4096', 'the frame to show the values typed');
    assert.equal(await (await frame()).locator('#greeting').textContent(), 'Hello Grace');
    assert.equal(await page.locator('iframe.mail-frame').getAttribute('sandbox'), '');
    const answer = await page.request.get(`${server.base}${new URL((await page.locator('iframe.mail-frame').getAttribute('src'))!, server.base).pathname}`);
    assert.match(answer.headers()['content-security-policy'] ?? '', /^default-src 'none'; img-src data: cid:; .*sandbox$/);
    assert.equal(await (await frame()).evaluate(() => (window as { __ran?: number }).__ran).catch(() => undefined), undefined, 'the script in the mail did not run');
    assert.notEqual(await page.title(), 'pwned');
    assert.equal(remote.length, 0, 'nothing remote was asked for');
    await chromium.shoot('template-editor');

    await preview.getByRole('button', { name: 'Load remote images' }).click();
    await waitFor(() => remote.length > 0, 'the remote image, once asked for');
    assert.deepEqual(remote.map((url) => url.replace(/^https/, 'http')), [REMOTE_IMAGE]);
  });

  it('refuses a syntax error with its line and column, saving nothing, and saves again once it is mended', async () => {
    const before = (await v1('GET', `/v1/templates/${templateId}`)).body.data.html;
    provoked.push(400);
    await page.getByLabel('HTML', { exact: true }).fill(`${HTML}\n<p>{{#first_name}} never closed</p>`);
    const alert = page.locator('.editor-card .form-error');
    await alert.getByText(/^html has a syntax error at line 4, column \d+: Unclosed section "first_name"/).waitFor();
    await page.getByRole('status').filter({ hasText: 'Not saved' }).waitFor();
    assert.equal((await v1('GET', `/v1/templates/${templateId}`)).body.data.html, before, 'the draft keeps its last good content');
    await chromium.shoot('template-syntax-error');
    await page.getByLabel('HTML', { exact: true }).fill(`${HTML}\n<p>{{#first_name}}Signed in as {{first_name}}{{/first_name}}</p>`);
    await saved();
    assert.equal(await alert.count(), 0);
  });

  it('publishes version 1, and shows a later edit as a draft waiting with its diff against the published version', async () => {
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published', { exact: true }).first().waitFor();
    const versions = page.getByRole('region', { name: 'Versions' });
    await versions.locator('td[data-label="Version"]').filter({ hasText: /^1published$/ }).waitFor();
    assert.equal((await v1('GET', `/v1/templates/${templateId}`)).body.data.status, 'published');

    await page.getByLabel('HTML', { exact: true }).fill(HTML.replace('is on its way', 'left our warehouse today'));
    await saved();
    await page.getByText('Published, draft waiting').first().waitFor();
    const diff = versions.locator('.diff-panel');
    await diff.getByRole('heading', { name: 'The draft against the published version 1' }).waitFor();
    const lines = await diff.locator('.diff-lines span').allTextContents();
    assert.ok(lines.some((l) => l.startsWith('− ') && l.includes('is on its way')), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('+ ') && l.includes('left our warehouse today')), lines.join('\n'));
    await chromium.shoot('template-draft-diff');
  });

  it('sends a test of the draft to the signed-in user, as the preview shows it', async () => {
    await page.getByRole('button', { name: 'Send a test to me' }).click();
    await page.getByRole('link', { name: 'Open the message' }).click();
    await page.getByRole('heading', { name: 'Order #4096 has shipped', level: 1 }).waitFor();
    const id = new URL(page.url()).pathname.split('/')[2]!;
    const message = (await v1('GET', `/v1/messages/${id}`)).body.data;
    assert.deepEqual([message.subject, message.recipients.map((r: { to: string }) => r.to)], ['Order #4096 has shipped', [ADMIN]]);
    const content = (await v1('GET', `/v1/messages/${id}/content`)).body.data;
    assert.match(content.html, /Hello Grace<\/h1>[\s\S]*left our warehouse today/);
    assert.match(content.text, /HELLO GRACE|Hello Grace/, 'the text made from the rendered HTML');
  });

  it('duplicates into an unpublished copy and deletes it', async () => {
    await page.goto(`${server.base}/templates/${templateId}`);
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.getByRole('heading', { name: 'Order shipped (copy)', level: 1 }).waitFor();
    const copyId = new URL(page.url()).pathname.split('/')[2]!;
    assert.notEqual(copyId, templateId);
    await page.getByRole('button', { name: 'Delete Order shipped (copy)' }).click();
    await page.getByRole('button', { name: 'Delete template' }).click();
    await page.getByRole('heading', { name: 'Templates of this workspace' }).waitFor();
    assert.equal((await v1('GET', `/v1/templates/${copyId}`)).status, 404);
    provoked.push(404);
    assert.deepEqual(await page.locator('table.templates td[data-label="Name"]').allTextContents(), ['Order shipped']);
  });

  it('shows a viewer everything and lets them change nothing', async () => {
    const viewer = await chromium.newPage();
    provoked.push(400, 401);
    await signInOnPage(viewer, server.base, VIEWER, PASSWORD);
    await viewer.goto(`${server.base}/templates/${templateId}`);
    await viewer.getByText('You are a viewer in this workspace: admins and developers edit, publish, duplicate and delete templates.').waitFor();
    assert.equal(await viewer.getByLabel('HTML', { exact: true }).getAttribute('readonly'), '');
    assert.equal(await viewer.getByRole('button', { name: /^(Publish|Duplicate|Delete|Add a variable|Send a test to me)$/ }).count(), 0);
    const preview = viewer.getByRole('region', { name: 'Preview' });
    await preview.getByText('template variable "order_number" is missing').waitFor();
    await preview.getByLabel('order_number').fill('512');
    await preview.getByText('Order #512 has shipped').waitFor();
    await viewer.goto(`${server.base}/templates`);
    await viewer.getByRole('heading', { name: 'Templates of this workspace' }).waitFor();
    assert.equal(await viewer.getByRole('button', { name: 'Create and edit' }).count(), 0);
  });

  it('lays out a long list and a long template at 1440 and 390 pixels wide without anything overflowing', async () => {
    const keys = ['customer_first_name', 'customer_last_name', 'order_number', 'order_total_formatted', 'shipping_carrier_name', 'tracking_number', 'estimated_delivery_date', 'support_phone_number'];
    const variables = keys.map((key, i) => ({ key, type: key === 'order_number' ? 'number' : 'string', ...(i % 2 ? { fallback_value: key === 'order_number' ? 1 : `Unknown ${key.replaceAll('_', ' ')}` } : {}) }));
    const rows = Array.from({ length: 30 }, (_, i) => `  <tr><td style="padding:8px">Item ${i + 1}: Refurbished ThinkPad X1 Carbon Gen 11, 32 GB RAM, 1 TB SSD</td><td align="right">{{order_total_formatted}}</td></tr>`);
    const html = `<!doctype html>\n<table width="100%" cellpadding="0" cellspacing="0" style="font-family:Helvetica,Arial,sans-serif">\n<tr><td><h1>Thanks for your order, {{customer_first_name}} {{customer_last_name}}!</h1></td></tr>\n${rows.join('\n')}\n<tr><td>Order #{{order_number}} ships with {{shipping_carrier_name}}, tracking {{tracking_number}}, arriving {{estimated_delivery_date}}. Questions? {{support_phone_number}} or https://support.compilers-and-cobol.example/orders/{{order_number}}/help-with-this-order</td></tr>\n</table>`;
    const names = [
      'Order confirmation with itemised receipt and estimated delivery window (EU warehouses)',
      'Password reset link for accounts created through single sign-on providers',
      'Quarterly invoice for enterprise customers on annual contracts with purchase-order numbers',
      'Shipping delay apology with a discount code',
      'Welcome series, day 1',
    ];
    let longId = '';
    for (const [i, name] of names.entries()) {
      const created = await v1('POST', '/v1/templates', { name, alias: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 90)}`, subject: 'Your order #{{order_number}} from Compilers & COBOL Ltd is confirmed and will arrive {{estimated_delivery_date}}', html, variables });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      if (i % 2 === 0) await v1('POST', `/v1/templates/${created.body.data.id}/publish`);
      if (i === 0) longId = created.body.data.id;
    }
    await v1('PATCH', `/v1/templates/${longId}`, { html: html.replace('Thanks for your order', 'Thank you for your order') });
    const problems: string[] = [];
    for (const [name, path, ready] of [
      ['templates-list', '/templates', 'Templates of this workspace'],
      ['template-long', `/templates/${longId}`, 'Versions'],
    ] as const) {
      await page.goto(`${server.base}${path}`);
      await page.getByRole('heading', { name: ready }).waitFor();
      if (name === 'template-long') await page.locator('.diff-panel').waitFor();
      problems.push(...(await layoutProblemsAtBothWidths(page, name)));
      await chromium.shoot(name);
    }
    assert.deepEqual(problems, []);
  });

  it('met no browser errors and no serious accessibility problems', () => {
    assert.deepEqual(unexpectedProblems(chromium.problems.filter((p) => !REFUSAL.test(p)), provoked), []);
    assert.deepEqual(chromium.inaccessible, []);
  });
});
