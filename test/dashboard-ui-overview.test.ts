/**
 * The Overview in Chromium against a real `mailroom serve` (sandbox provider):
 * mail to the simulator's mailboxes makes figures, a chart and rates known in
 * advance. One workspace's rates are past Amazon SES's review thresholds and
 * warn; another's are under them and do not. The figures and rates lead to
 * the logs of exactly what they count, from the period's start.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { BIN, mailroomCommand, startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const PASSWORD = 'a long enough password';
const SIM = 'simulator.mailroom.test';
const FROM = 'Acme <hello@sandbox.mailroom.test>';
const HOUR_MS = 3_600_000;
/** What each workspace's one send request comes to, once the sandbox has dealt with every recipient. */
const BUSY = { total_sent: 6, delivered: 3, bounced: 1, complained: 1, suppressed: 1, failed: 1 };
const CALM = { total_sent: 22, delivered: 21, bounced: 1, complained: 0, suppressed: 0, failed: 0 };

describe('the Overview in Chromium: figures, chart, rates and their links', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  let chromium: TestBrowser;
  let page: Page;
  const keys = { busy: '', calm: '' };

  function newWorkspace(name: string) {
    const run = mailroomCommand(['workspace', 'create', '--name', name, '--json'], store.env);
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as { workspace_id: string; api_key: string };
  }

  function createUser(email: string, workspaceId: string) {
    const args = ['user', 'create', '--email', email, '--password-stdin', '--workspace', workspaceId, '--role', 'admin'];
    const run = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...store.env }, input: `${PASSWORD}\n`, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
  }

  const v1 = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.base}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: any } };
  };

  async function settled(key: string, expected: Record<string, number>) {
    let last = '';
    const look = async () => {
      const { status, body } = await v1(key, 'GET', '/v1/send/stats');
      last = `${status} ${JSON.stringify(body)}`;
      return JSON.stringify(body.data) === JSON.stringify(expected);
    };
    await waitFor(look, () => `the stats ${JSON.stringify(expected)}; the last seen: ${last}`);
  }

  async function signIn(on: Page, email: string) {
    await on.goto(server.base);
    await on.getByLabel('E-mail address').fill(email);
    await on.getByLabel('Password').fill(PASSWORD);
    await on.getByRole('button', { name: 'Sign in' }).click();
    await on.getByRole('heading', { name: 'Overview' }).waitFor();
  }

  const figure = (on: Page, label: string) => on.getByRole('link', { name: new RegExp(`^${label}`) });
  const rateCard = (on: Page, title: string) => on.getByRole('region', { name: title, exact: true });

  /** The 24-hour period starts at the top of the hour 23 hours before this one: the figures' and rates' `since`. */
  function dayStarts(): string[] {
    const hour = Math.floor(Date.now() / HOUR_MS);
    // Either side of an hour's turn, should the test run across one.
    return [hour - 23, hour - 24].map((h) => new Date(h * HOUR_MS).toISOString());
  }

  before(async () => {
    store = await freshStore();
    // tempfail@ fails for good at its second attempt, a few milliseconds after the first. The API's rate limit is
    // lifted: the stats are polled every 25 ms until the mail settles, and at the default 60 a minute a machine slow
    // enough to take 1.5 s got 429s, then nothing else, for the rest of the minute.
    server = await startServe({ ...store.env, WORKER_POLL_MS: '20', DELIVERY_MAX_ATTEMPTS: '2', DELIVERY_RETRY_BASE_MS: '10', RATE_LIMIT_OTHER_PER_MIN: '100000' });
    const busy = newWorkspace('Busy');
    const calm = newWorkspace('Calm');
    keys.busy = busy.api_key;
    keys.calm = calm.api_key;
    createUser('ada@example.com', busy.workspace_id);
    createUser('cyd@example.com', calm.workspace_id);

    assert.equal((await v1(keys.busy, 'POST', '/v1/suppressions', { email: 'blocked@example.com' })).status, 201);
    const busyTo = [`delivered@${SIM}`, `bounce@${SIM}`, `complaint@${SIM}`, `tempfail@${SIM}`, 'blocked@example.com', 'ok@example.com'];
    assert.equal((await v1(keys.busy, 'POST', '/v1/send', { to: busyTo, from_email: FROM, subject: 'Busy', text: 'Hello' })).status, 200);
    const calmTo = [...Array.from({ length: 21 }, (_, i) => `reader${i}@example.com`), `bounce@${SIM}`];
    assert.equal((await v1(keys.calm, 'POST', '/v1/send', { to: calmTo, from_email: FROM, subject: 'Calm', text: 'Hello' })).status, 200);
    await settled(keys.busy, BUSY);
    await settled(keys.calm, CALM);

    chromium = await launchBrowser();
    page = chromium.page;
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await store?.drop();
  });

  it('shows the six figures of the last 24 hours, each linking to the logs it counts from the period start', async () => {
    await signIn(page, 'ada@example.com');
    await waitFor(async () => (await figure(page, 'Sent').textContent()) === 'Sent6', 'the sent figure');
    const shown = { Delivered: 'Delivered3', Bounced: 'Bounced1', Complained: 'Complained1', Suppressed: 'Suppressed1', Failed: 'Failed1' };
    for (const [label, text] of Object.entries(shown)) assert.equal(await figure(page, label).textContent(), text);

    const since = new URL(`${server.base}${await figure(page, 'Sent').getAttribute('href')}`).searchParams.get('since')!;
    assert.ok(dayStarts().includes(since), `the period starts at the top of the hour 23 hours ago (${since})`);
    const expected = { Sent: 'type=send', Delivered: 'status=delivered&type=send', Bounced: 'status=bounced&type=send', Complained: 'type=complaint', Suppressed: 'status=suppressed&type=send', Failed: 'status=failed&type=send' };
    for (const [label, query] of Object.entries(expected)) {
      assert.equal(await figure(page, label).getAttribute('href'), `/logs?${query}&since=${encodeURIComponent(since)}`, label);
    }
  });

  it('draws the chart, with the numbers in its text alternative', async () => {
    const chart = page.getByRole('img', { name: /^Chart of mail per hour over the last 24 hours/ });
    assert.match((await chart.getAttribute('aria-label'))!, /6 sent, 3 delivered, 1 bounced, 1 complained, 1 failed\./);
    const canvas = page.locator('.chart-plot canvas');
    await canvas.waitFor();
    // Something was drawn: the canvas has painted pixels (lines, axes, grid).
    const painted = await canvas.evaluate((c: HTMLCanvasElement) => c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 === 3 && v > 0));
    assert.ok(painted, 'the canvas is painted');
    for (const name of ['Sent', 'Delivered', 'Bounced', 'Complained', 'Failed']) await page.getByRole('list', { name: 'Legend' }).getByText(name, { exact: true }).waitFor();

    const table = page.locator('.series-table');
    assert.deepEqual(await table.locator('thead th').allTextContents(), ['Hour', 'Sent', 'Delivered', 'Bounced', 'Complained', 'Failed']);
    assert.equal(await table.locator('tbody tr').count(), 1, 'all the mail in this hour: one row');
    assert.deepEqual((await table.locator('tbody tr td').allTextContents()).map(Number), [6, 3, 1, 1, 1]);
    assert.match((await table.locator('tbody th').textContent())!, /\d{2}:00 UTC$/);
    assert.deepEqual(await table.locator('tfoot tr > *').allTextContents(), ['Total', '6', '3', '1', '1', '1']);
    await page.getByText('The numbers per hour').click();
    await chromium.shoot('overview-warnings');
  });

  it('warns of a bounce and a complaint rate at or past the SES review thresholds, linking to their logs', async () => {
    // Four recipients were handed on (suppressed and failed ones were not): 1 bounce and 1 complaint of 4.
    for (const [title, linkName, query] of [
      ['Bounce rate', 'See the bounces in the logs', 'status=bounced&type=send'],
      ['Complaint rate', 'See the complaints in the logs', 'type=complaint'],
    ] as const) {
      const card = rateCard(page, title);
      assert.equal(await card.locator('.rate-value').textContent(), '25.00%', title);
      assert.match((await card.textContent())!, /1 of 4 recipients handed on for delivery/);
      assert.match((await card.locator('.rate-warning').textContent())!, /^Warning: (5\.00|0\.10)% or more\./);
      const href = (await card.getByRole('link', { name: linkName }).getAttribute('href'))!;
      assert.ok(dayStarts().some((since) => href === `/logs?${query}&since=${encodeURIComponent(since)}`), href);
    }

    await rateCard(page, 'Bounce rate').getByRole('link', { name: 'See the bounces in the logs' }).click();
    await page.getByRole('heading', { name: 'Logs' }).waitFor();
    const url = new URL(page.url());
    assert.equal(url.pathname, '/logs');
    assert.equal(url.searchParams.get('status'), 'bounced');
    assert.equal(url.searchParams.get('type'), 'send');
    assert.ok(dayStarts().includes(url.searchParams.get('since')!));
    await page.getByRole('row', { name: new RegExp(`bounce@${SIM.replace(/\./g, '\\.')}`) }).waitFor();
  });

  it('follows the period: a week by the hour, a month by the day', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('button', { name: '7 days' }).click();
    assert.equal(await page.getByRole('button', { name: '7 days' }).getAttribute('aria-pressed'), 'true');
    await page.getByRole('img', { name: /^Chart of mail per hour over the last 7 days: 6 sent/ }).waitFor();
    const week = new URL(`${server.base}${await figure(page, 'Bounced').getAttribute('href')}`).searchParams.get('since')!;
    assert.equal(Date.parse(week) % HOUR_MS, 0);
    assert.ok(Math.abs(Date.now() - Date.parse(week) - 7 * 24 * HOUR_MS) <= HOUR_MS, week);

    await page.getByRole('button', { name: '30 days' }).click();
    await page.getByRole('img', { name: /^Chart of mail per day over the last 30 days: 6 sent, 3 delivered, 1 bounced, 1 complained, 1 failed/ }).waitFor();
    await page.getByRole('heading', { name: 'Mail per day (UTC)' }).waitFor();
    assert.deepEqual(await page.locator('.series-table tfoot tr > *').allTextContents(), ['Total', '6', '3', '1', '1', '1']);
    const month = new URL(`${server.base}${await figure(page, 'Sent').getAttribute('href')}`).searchParams.get('since')!;
    assert.equal(Date.parse(month) % (24 * HOUR_MS), 0, 'a month starts at a UTC midnight');
    assert.equal(await figure(page, 'Sent').textContent(), 'Sent6');
    await chromium.shoot('overview-month');
  });

  it('shows rates under the thresholds without a warning', async () => {
    const other = await chromium.newPage();
    await signIn(other, 'cyd@example.com');
    await waitFor(async () => (await figure(other, 'Sent').textContent()) === 'Sent22', 'the calm sent figure');
    // 1 bounce of 22 recipients: 4.55 %, under 5 %; no complaint.
    assert.equal(await rateCard(other, 'Bounce rate').locator('.rate-value').textContent(), '4.55%');
    assert.equal(await rateCard(other, 'Complaint rate').locator('.rate-value').textContent(), '0.00%');
    assert.equal(await other.locator('.rate-warning').count(), 0);
    assert.equal(await other.getByText(/Warning/).count(), 0);
    await other.locator('.chart-plot canvas').waitFor();
    await chromium.shoot('overview-calm', other);
  });

  it('stays accessible and quiet', () => {
    assert.deepEqual(chromium.inaccessible, []);
    // 401: each page asks who is signed in before its sign-in.
    assert.deepEqual(unexpectedProblems(chromium.problems, [401]), []);
  });
});
