/**
 * The logs explorer in Chromium against two real `mailroom serve` processes
 * on one store: every filter kept in the address (a reload or a link shows
 * the same view), live updates of mail sent through the other process's /v1,
 * the switch that pauses them, and a test e-mail sent from the page landing
 * on its message.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { BIN, mailroomCommand, startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { migratedStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const PASSWORD = 'a long enough password';
const SENDER = 'hello@sandbox.mailroom.test';

describe('the logs explorer in Chromium', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  /** The process the browser talks to, and another one on the same store that takes the API's sends. */
  let dashboard: ServeProcess;
  let api: ServeProcess;
  let chromium: TestBrowser;
  let page: Page;
  let apiKey = '';

  const send = async (to: string, subject: string) => {
    const res = await fetch(`${api.base}/v1/send`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ to: [to], from_email: SENDER, subject, text: 'Hello' }),
    });
    const { data } = (await res.json()) as { data: { message_id: string; status: string } };
    assert.equal(data.status, 'sent');
    return data.message_id;
  };
  const rowOf = (to: string) => page.getByRole('row', { name: new RegExp(to.replace(/[.+]/g, '\\$&')) });
  const search = () => new URLSearchParams(new URL(page.url()).search);

  before(async () => {
    store = await migratedStore();
    const workspace = JSON.parse(mailroomCommand(['workspace', 'create', '--name', 'Acme', '--json'], store.env).stdout) as { workspace_id: string; api_key: string };
    apiKey = workspace.api_key;
    const user = spawnSync(process.execPath, [BIN, 'user', 'create', '--email', 'ada@example.com', '--password-stdin', '--workspace', workspace.workspace_id, '--role', 'developer'], {
      env: { ...process.env, ...store.env },
      input: `${PASSWORD}\n`,
      encoding: 'utf8',
    });
    assert.equal(user.status, 0, user.stderr);
    // Each kept as soon as it is up, and both waited for: were one not to start, `after` still stops the other,
    // which left running would keep the test process alive forever.
    const starting = [startServe({ ...store.env, WORKER_POLL_MS: '20' }).then((s) => (dashboard = s)), startServe({ ...store.env, WORKER_POLL_MS: '20' }).then((s) => (api = s))];
    await Promise.allSettled(starting);
    await Promise.all(starting);
    // The simulator's mailboxes give known outcomes: one delivered, one bounced.
    await send('delivered@simulator.mailroom.test', 'Welcome aboard');
    await send('bounce@simulator.mailroom.test', 'Your invoice');
    const bounced = async () => (await (await fetch(`${api.base}/v1/send/logs?status=bounced`, { headers: { 'x-api-key': apiKey } })).json()) as { data: unknown[] };
    // Asked once a second: the key's limit is 60 requests a minute.
    await waitFor(async () => (await bounced()).data?.length === 1, 'the simulator bounced one', { intervalMs: 1000 });

    chromium = await launchBrowser();
    page = chromium.page;
    await page.goto(`${dashboard.base}/logs`);
    await page.getByLabel('E-mail address').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Logs' }).waitFor();
  });
  after(async () => {
    await chromium?.close();
    await Promise.all([dashboard?.stop(), api?.stop()]);
    await store?.drop();
  });

  it('opens the logs it was asked for after sign-in, and keeps every filter in the address', async () => {
    await rowOf('bounce@simulator').waitFor();
    await page.getByRole('combobox', { name: 'Status' }).selectOption('bounced');
    await waitFor(async () => search().get('status') === 'bounced' && (await page.getByRole('row').count()) === 2, 'the bounced entry alone');
    assert.match((await rowOf('bounce@simulator').locator('.log-error').textContent())!, /550/, 'its error inline');
    await page.getByRole('combobox', { name: 'Status' }).selectOption('');

    await page.getByRole('searchbox', { name: 'Recipient' }).fill('DELIVERED@simulator.mailroom.test');
    await page.getByRole('searchbox', { name: 'Sender' }).fill(SENDER);
    await page.getByLabel('Since').fill('2026-01-01T00:00');
    await page.getByRole('button', { name: 'Search' }).click();
    await waitFor(() => search().get('to') === 'DELIVERED@simulator.mailroom.test', 'the recipient in the address');
    assert.equal(search().get('from_email'), SENDER);
    assert.equal(new Date(search().get('since')!).getTime(), new Date('2026-01-01T00:00').getTime(), 'the local time kept as an instant');
    await waitFor(async () => (await page.getByRole('row').count()) === 2, 'one entry');
    await rowOf('delivered@simulator').waitFor();

    // The address alone reproduces the view: another page opening it sees the same filters and rows.
    const link = page.url();
    const other = await page.context().newPage();
    await other.goto(link);
    await other.getByRole('row', { name: /delivered@simulator/ }).waitFor();
    assert.equal(await other.getByRole('row').count(), 2);
    assert.equal(await other.getByRole('searchbox', { name: 'Recipient' }).inputValue(), 'DELIVERED@simulator.mailroom.test');
    await chromium.shoot('logs-filtered', other);
    await other.close();

    await page.getByRole('button', { name: 'Clear' }).click();
    await waitFor(() => new URL(page.url()).search === '', 'no filter left in the address');
    await page.getByRole('searchbox', { name: 'Message ID' }).fill('msg_nothing');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No entries match these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
  });

  it("shows mail sent through the other process's API within 2 seconds, unless paused", async () => {
    await rowOf('bounce@simulator').waitFor();
    const toggle = page.getByRole('button', { name: 'Live updates' });
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    const sentAt = Date.now();
    await send('live.one@example.com', 'Live one');
    await rowOf('live.one@example.com').waitFor({ timeout: 5000 });
    const shownAfter = Date.now() - sentAt;
    assert.ok(shownAfter < 2000, `shown ${shownAfter} ms after the send`);

    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    await send('live.two@example.com', 'Live two');
    // Paused, the page asks nothing; turned on again, the entry shows.
    const asked: string[] = [];
    page.on('request', (request) => request.url().includes('/logs?') && asked.push(request.url()));
    await toggle.click();
    await rowOf('live.two@example.com').waitFor({ timeout: 5000 });
    assert.ok(asked.length >= 1);
    await chromium.shoot('logs-live');
  });

  it('pages older and newer by cursor, the cursor in the address', async () => {
    // One send to 50 recipients: 50 entries more, so the log has more than a page of 50.
    const res = await fetch(`${api.base}/v1/send`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ to: Array.from({ length: 50 }, (_, i) => `reader${i}@example.com`), from_email: SENDER, subject: 'Newsletter', text: 'Hello' }),
    });
    assert.equal(res.status, 200);
    await rowOf('reader49@example.com').waitFor();
    const firstPage = await page.locator('tbody tr').allTextContents();
    assert.equal(firstPage.length, 50);
    await page.getByRole('button', { name: 'Older' }).click();
    await waitFor(() => search().get('before')?.startsWith('log_'), 'the cursor in the address');
    await rowOf('live.one@example.com').waitFor();
    assert.ok((await page.locator('tbody tr').count()) < 50, 'the rest of the log');
    await page.getByRole('button', { name: 'Newer' }).click();
    await waitFor(() => !search().has('before'), 'back on the first page');
    await rowOf('reader49@example.com').waitFor();
  });

  it('sends a test e-mail from the page and lands on its message', async () => {
    await page.getByText('Send a test e-mail').click();
    assert.equal(await page.getByRole('combobox', { name: 'Domain' }).inputValue(), 'sandbox.mailroom.test');
    await page.getByRole('textbox', { name: 'To' }).fill('not an address');
    await page.getByRole('button', { name: 'Send test e-mail' }).click();
    // The browser's own check of type=email stops it first; a server refusal would show next to the field.
    assert.equal(new URL(page.url()).pathname, '/logs');
    await page.getByRole('textbox', { name: 'To' }).fill('delivered@simulator.mailroom.test');
    await page.getByRole('textbox', { name: 'Subject' }).fill('Sent from the dashboard');
    await chromium.shoot('send-test');
    await page.getByRole('button', { name: 'Send test e-mail' }).click();
    await waitFor(() => /^\/messages\/msg_/.test(new URL(page.url()).pathname), 'the message page');
    const messageId = new URL(page.url()).pathname.split('/')[2]!;
    const logged = (await (await fetch(`${api.base}/v1/send/logs?message_id=${messageId}`, { headers: { 'x-api-key': apiKey } })).json()) as { data: Array<{ subject: string }> };
    assert.deepEqual(logged.data.map((e) => e.subject), ['Sent from the dashboard']);
  });

  it('passes axe-core on every view it looked at, and logged no unexpected error', () => {
    assert.deepEqual(chromium.inaccessible, []);
    // 401: the page asked who is signed in before signing in.
    assert.deepEqual(unexpectedProblems(chromium.problems, [401]), []);
  });
});
