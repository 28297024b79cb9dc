/**
 * Every page of the dashboard in Chromium at 1440 and 390 pixels wide, with
 * data as long as the limits allow: a 64-character local part, a 253-character
 * domain (its 2,048-bit DKIM key in its DNS records), long subjects, names,
 * tags, attachment names and webhook URLs. No page scrolls sideways, nothing
 * reaches past its card or out of its table cell, every form's controls share
 * one height and font, and a Live switch sits beside its heading
 * (helpers/layout-check.ts measures it). Screenshots of each page at both
 * widths go to MAILROOM_SCREENSHOTS when it is set.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { layoutProblems } from './helpers/layout-check.js';
import { startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

/** A DNS label of `length` characters (at most 63) made of `word`, not ending in a hyphen. */
const label = (word: string, length: number) => `${`${word}-`.repeat(Math.ceil(length / (word.length + 1))).slice(0, length - 1)}x`;
const LOCAL = 'first.middle.last-name.of.someone.with.a.rather-long.address.box'.slice(0, 64);
const UNBROKEN_LOCAL = 'averyveryverylonglocalpartwithnoplaceatalltobreakitanywhereatall';
const MAIL_DOMAIN = `${label('customers', 63)}.${label('mail', 63)}.example`;
const DOMAIN = `${label('transactional', 63)}.${label('notifications', 63)}.${label('eu-west', 63)}.${label('acme', 53)}.example`;
const ADMIN = `${LOCAL}@${MAIL_DOMAIN}`;
const MEMBER = `${UNBROKEN_LOCAL}@${MAIL_DOMAIN}`;
const SUPPRESSED = `${UNBROKEN_LOCAL.slice(0, 56)}.blocked@${MAIL_DOMAIN}`;
const PASSWORD = 'a long enough password';
const WORKSPACE = 'Acme Corporation International Holdings, Transactional Mail for Customer Accounts';
const SUBJECT = `Your order ORD-${'7F3A9C21'.repeat(10)} has shipped: a subject line long enough to wrap over several lines on any screen`;
const SENDER = `Acme Billing and Accounts Receivable Department <${LOCAL}@sandbox.mailroom.test>`;
const KEY_NAME = `Production sending key for the billing service ${'k'.repeat(52)}`;
const SIM = 'simulator.mailroom.test';
const WIDTHS = [1440, 390] as const;

describe('every dashboard page at 1440 and 390 pixels wide, with long data', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  let receiver: WebhookReceiver;
  let chromium: TestBrowser;
  /** The same admin in two contexts, one per width. */
  const pages = new Map<number, Page>();
  let hookUrl = '';
  let messageId = '';
  let invitePath = '';
  let workspaceId = '';
  /** The workspace's first API key, as setup shows it. */
  let key = '';

  /** A dashboard API call in the wide page's session (its cookie, CSRF token and origin). */
  async function dashboard<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const request = pages.get(1440)!.context().request;
    const csrf = ((await (await request.get(`${server.base}/dashboard/api/session`)).json()) as { data: { csrf_token: string } }).data.csrf_token;
    const res = await request.fetch(`${server.base}/dashboard/api${path}`, { method, headers: { origin: server.base, 'x-csrf-token': csrf }, ...(body ? { data: body } : {}) });
    const envelope = (await res.json()) as { success: boolean; data: T; error?: string };
    assert.ok(envelope.success, `${method} ${path}: ${envelope.error}`);
    return envelope.data;
  }

  async function v1(key: string, path: string, body: unknown) {
    const res = await fetch(`${server.base}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const envelope = (await res.json()) as { success: boolean; data: { message_id: string; id: string }; error?: string };
    assert.ok(envelope.success, `${path}: ${envelope.error}`);
    return envelope.data;
  }

  /** The page's layout problems, each prefixed with where it was seen; a full-page screenshot when asked for. */
  async function measure(name: string, width: number, page: Page): Promise<string[]> {
    const problems = (await layoutProblems(page)).map((p) => `${name} at ${width} px: ${p}`);
    const dir = process.env.MAILROOM_SCREENSHOTS;
    if (dir) {
      mkdirSync(dir, { recursive: true });
      // A frame of another process (a sandboxed one) below the fold is painted only once shown.
      for (const frame of await page.locator('iframe').all()) await frame.screenshot();
      await page.screenshot({ path: join(dir, `layout-${name}-${width}.png`), fullPage: true });
    }
    return problems;
  }

  /** Loads the page in both contexts (`open` gets it there and waits for its content), then measures each. */
  async function check(name: string, open: (page: Page) => Promise<void>) {
    const problems: string[] = [];
    for (const width of WIDTHS) {
      const page = pages.get(width)!;
      await open(page);
      problems.push(...(await measure(name, width, page)));
    }
    assert.deepEqual(problems, []);
  }

  const visit = (path: string, ready: (page: Page) => Promise<unknown>) => async (page: Page) => {
    await page.goto(`${server.base}${path}`);
    await ready(page);
  };

  before(async () => {
    assert.deepEqual([LOCAL.length, UNBROKEN_LOCAL.length, DOMAIN.length], [64, 64, 253], 'the longest local part and domain DNS allows');
    store = await freshStore();
    receiver = await startWebhookReceiver(() => 200);
    hookUrl = `${receiver.url}/${'a-long-path-segment-of-the-endpoint/'.repeat(6)}mailroom?signature_version=1&token=${'Zx9'.repeat(40)}`;
    server = await startServe({ ...store.env, WEBHOOK_ALLOW_PRIVATE: 'true', WORKER_POLL_MS: '20', RATE_LIMIT_OTHER_PER_MIN: '100000' });
    chromium = await launchBrowser();
    pages.set(1440, chromium.page);
    const narrow = await chromium.newPage();
    await narrow.setViewportSize({ width: 390, height: 844 });
    pages.set(390, narrow);
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await receiver?.close();
    await store?.drop();
  });

  it('lays out the sign-in page', async () => {
    await check('sign-in', visit('/', (page) => page.getByRole('button', { name: 'Sign in' }).waitFor()));
  });

  it('lays out the setup page', async () => {
    const link = await waitFor(() => /open (http:\/\/\S+\/setup\?token=\S+) within an hour/.exec(server.output())?.[1], 'the setup link in the log');
    await check('setup', visit(new URL(link).pathname + new URL(link).search, (page) => page.getByRole('button', { name: 'Create account and workspace' }).waitFor()));
  });

  it("says, with no mail yet, that there is no rate to judge rather than that it is under SES's threshold", async () => {
    const page = pages.get(1440)!;
    await page.getByLabel('Your e-mail address').fill(ADMIN);
    await page.getByLabel('Password (at least 10 characters)').fill(PASSWORD);
    await page.getByLabel('Workspace name').fill(WORKSPACE);
    await page.getByRole('button', { name: 'Create account and workspace' }).click();
    await page.getByRole('heading', { name: "The workspace's first API key" }).waitFor();
    await page.getByRole('region', { name: 'Bounce rate', exact: true }).waitFor();
    assert.deepEqual(await page.locator('.rate-fine').allTextContents(), ['No mail handed on for delivery in this period yet.', 'No mail handed on for delivery in this period yet.']);
    key = (await page.locator('.notice-card code.secret').first().textContent())!;

    const narrow = pages.get(390)!;
    await narrow.goto(server.base);
    await narrow.getByLabel('E-mail address').fill(ADMIN);
    await narrow.getByLabel('Password').fill(PASSWORD);
    await narrow.getByRole('button', { name: 'Sign in' }).click();
    await narrow.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  it('lays out the first API key that setup leaves on the Overview', async () => {
    // Shown once, right after setup: measured in the page that set up, at each width in turn.
    const page = pages.get(1440)!;
    const problems: string[] = [];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      // The chart follows its box through a ResizeObserver, which answers after the new layout: wait for it to have.
      await page.waitForFunction(() => {
        const canvas = document.querySelector('.chart-plot canvas');
        return canvas !== null && canvas.getBoundingClientRect().width <= canvas.closest('.chart-plot')!.clientWidth;
      });
      problems.push(...(await measure('first-key', width, page)));
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    assert.deepEqual(problems, []);
  });

  it('lays out the Overview of a workspace with no mail yet', async () => {
    await check('overview-empty', visit('/', (page) => page.locator('.chart-plot canvas').waitFor()));
  });

  it('fills the workspace with long data through the API, as a client would', async () => {
    workspaceId = (await dashboard<{ workspaces: { id: string }[] }>('GET', '/session')).workspaces[0]!.id;
    const ws = `/workspaces/${workspaceId}`;
    await dashboard('POST', `${ws}/webhooks`, { url: hookUrl });
    const domain = await v1(key, '/v1/domains', { domain: DOMAIN });
    await dashboard('POST', `${ws}/api-keys`, { name: KEY_NAME, permission: 'sending_access', domain_id: domain.id });
    const send = (to: string[], extra: object = {}) => v1(key, '/v1/send', { from_email: SENDER, to, subject: SUBJECT, text: 'Hello', ...extra });
    messageId = (
      await send([`${UNBROKEN_LOCAL}@${MAIL_DOMAIN}`, `delivered@${SIM}`], {
        cc: [ADMIN],
        reply_to: `${LOCAL}@${MAIL_DOMAIN}`,
        html: `<p>Hello</p><p>${'https://example.com/a/very/long/link/'.repeat(8)}</p>`,
        tags: [{ name: 'campaign_of_the_spring_season', value: `spring-sale-${'X'.repeat(120)}` }],
        attachments: [{ filename: `invoice-${'2026-12-'.repeat(14)}final.pdf`, content: Buffer.from('%PDF-1.4').toString('base64'), content_type: 'application/pdf' }],
      })
    ).message_id;
    await send([`bounce@${SIM}`]);
    await send([`complaint@${SIM}`]);
    await dashboard('POST', `${ws}/suppressions`, { email: SUPPRESSED });
    // One invitation taken by a member with a long address, one pending.
    const taken = await dashboard<{ path: string }>('POST', `${ws}/invitations`, { role: 'developer' });
    const account = await fetch(`${server.base}/dashboard/api/invitations/${new URL(taken.path, server.base).searchParams.get('token')}/account`, {
      method: 'POST',
      headers: { origin: server.base, 'content-type': 'application/json' },
      body: JSON.stringify({ email: MEMBER, password: PASSWORD }),
    });
    assert.ok(account.ok, await account.text());
    invitePath = (await dashboard<{ path: string }>('POST', `${ws}/invitations`, { role: 'viewer' })).path;

    type Detail = { recipients: { status: string }[]; webhook_deliveries: { status: string }[] };
    await waitFor(async () => {
      const logs = await dashboard<{ entries: { type: string }[] }>('GET', `${ws}/logs?type=complaint`);
      const message = await dashboard<Detail>('GET', `${ws}/messages/${messageId}`);
      return logs.entries.length === 1 && message.webhook_deliveries.length > 0 && message.webhook_deliveries.every((d) => d.status === 'delivered');
    }, 'the complaint, and the webhook deliveries of the first message');
  });

  it('lays out the Overview', async () => {
    await check('overview', visit('/', (page) => page.locator('.chart-plot canvas').waitFor()));
  });

  it('lays out the Logs, the test e-mail form open', async () => {
    await check(
      'logs',
      visit('/logs', async (page) => {
        await page.locator('.log-error').first().waitFor();
        await page.getByText('Send a test e-mail').click();
        await page.getByRole('button', { name: 'Send test e-mail' }).waitFor();
      }),
    );
  });

  it('lays out a message page', async () => {
    await check('message', visit(`/messages/${messageId}`, (page) => page.locator('table.message-hooks tbody tr').first().waitFor()));
  });

  it('lays out the Domains, the long domain with its DNS records open', async () => {
    await check(
      'domains',
      visit('/domains', async (page) => {
        await page.getByRole('button', { name: `DNS records of ${DOMAIN}` }).click();
        await page.locator('table.records code', { hasText: /^v=DKIM1; k=rsa; p=/ }).waitFor();
      }),
    );
  });

  it('lays out the API keys, a sending key for the long domain being made', async () => {
    await check(
      'api-keys',
      visit('/api-keys', async (page) => {
        await page.locator('td[data-label="Name"]', { hasText: KEY_NAME }).waitFor();
        await page.getByLabel('Access').selectOption('sending_access');
        await page.getByLabel('Sends from').selectOption({ label: DOMAIN });
      }),
    );
  });

  it('lays out the Webhooks, the long endpoint with its deliveries open', async () => {
    await check(
      'webhooks',
      visit('/webhooks', async (page) => {
        await page.getByRole('button', { name: `Deliveries to ${hookUrl}` }).click();
        await page.locator('table.deliveries tbody tr').first().waitFor();
      }),
    );
  });

  it('lays out the Suppressions, with long addresses and one looked up', async () => {
    await check(
      'suppressions',
      visit('/suppressions', async (page) => {
        await page.locator('td[data-label="Address"]', { hasText: `bounce@${SIM}` }).waitFor();
        await page.getByLabel('E-mail address').fill(`bounce@${SIM}`);
        await page.getByRole('button', { name: 'Look up' }).click();
        await page.locator('table.found tbody tr').waitFor();
      }),
    );
  });

  it('lays out the Members, with a pending invitation', async () => {
    await check('members', visit('/members', (page) => page.getByRole('button', { name: /^Revoke the viewer invitation/ }).waitFor()));
  });

  it('lays out the Settings', async () => {
    await check('settings', visit('/settings', (page) => page.getByRole('heading', { name: 'Create a workspace' }).waitFor()));
  });

  it('lays out the invitation page, signed in', async () => {
    await check('invite-signed-in', visit(invitePath, (page) => page.getByRole('button', { name: `Join ${WORKSPACE}` }).waitFor()));
  });

  it('lays out the invitation page, signed out', async () => {
    await check('invite', async (page) => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: `Create account and join ${WORKSPACE}` }).waitFor();
    });
  });

  it('logged no error in the browser', () => {
    // The 401s: the session each signed-out page asks for first.
    assert.deepEqual(unexpectedProblems(chromium.problems, [401]), []);
  });
});
