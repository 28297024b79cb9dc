/**
 * The Webhooks page in a real browser: Chromium against a real `mailroom serve`
 * process, posting to a real HTTP receiver on loopback. An endpoint is added
 * (its secret shown once), a test event reaches the receiver and verifies with
 * the `standardwebhooks` package, its delivery shows with its status and
 * response code and is retried, the secret is rotated, a viewer sees no
 * controls, and the endpoint is deleted after a confirmation. Screenshots at
 * 1440 and 390 pixels wide go to MAILROOM_SCREENSHOTS when it is set.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { OPT_IN_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from '../src/webhooks/webhook-service.js';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { BIN, startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type ReceivedHook, type WebhookReceiver } from './helpers/webhook-receiver.js';

const PASSWORD = 'first admin password';
const VIEWER_PASSWORD = 'viewer password 1';
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe('the Webhooks page in Chromium', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  let receiver: WebhookReceiver;
  /** What the receiver answers: 503 until a test wants the post to succeed. */
  let answer = 503;
  let chromium: TestBrowser;
  let page: Page;
  let secret = '';
  const shoot = (name: string, on?: Page) => chromium.shoot(name, on);
  const verify = (hook: ReceivedHook, key = secret) => new Webhook(key).verify(hook.body, hook.headers as Record<string, string>) as Record<string, unknown>;
  const deliveryRow = () => page.locator('table.deliveries tbody tr').first();

  before(async () => {
    store = await freshStore();
    receiver = await startWebhookReceiver(() => answer);
    // Loopback receivers are allowed; a failed post waits a minute, so only the Retry button posts it again within the test.
    server = await startServe({ ...store.env, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '60000' });
    chromium = await launchBrowser();
    page = chromium.page;
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await receiver?.close();
    await store?.drop();
  });

  it('sets up the first admin in the browser, and lists Webhooks between API keys and Suppressions, empty', async () => {
    const link = await waitFor(() => /open (http:\/\/\S+\/setup\?token=\S+) within an hour/.exec(server.output())?.[1], 'the setup link in the log');
    await page.goto(link);
    await page.getByLabel('Your e-mail address').fill('ada@example.com');
    await page.getByLabel('Password (at least 10 characters)').fill(PASSWORD);
    await page.getByLabel('Workspace name').fill('Acme');
    await page.getByRole('button', { name: 'Create account and workspace' }).click();
    await page.getByRole('heading', { name: "The workspace's first API key" }).waitFor();

    const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    assert.equal(nav.indexOf('Webhooks'), nav.indexOf('API keys') + 1, nav.join(', '));
    assert.equal(nav.indexOf('Suppressions'), nav.indexOf('Webhooks') + 1, nav.join(', '));
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('No webhook endpoints yet.').waitFor();
    assert.equal(await page.getByRole('checkbox').count(), WEBHOOK_EVENT_TYPES.length + OPT_IN_EVENT_TYPES.length, 'a checkbox per event type');
    for (const type of WEBHOOK_EVENT_TYPES) assert.equal(await page.getByRole('checkbox', { name: new RegExp(`^${type} `) }).isChecked(), true, type);
    // Mailroom's own events are for endpoints that ask for them.
    for (const type of OPT_IN_EVENT_TYPES) assert.equal(await page.getByRole('checkbox', { name: new RegExp(`^${type.replace('.', '\\.')} `) }).isChecked(), false, type);
    await shoot('webhooks-empty');
  });

  it('shows what is wrong next to the field it is about', async () => {
    for (const type of WEBHOOK_EVENT_TYPES) await page.getByRole('checkbox', { name: new RegExp(`^${type} `) }).uncheck();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('group', { name: 'Events to send' }).getByRole('alert').filter({ hasText: 'Choose at least one event.' }).waitFor();

    await page.getByRole('checkbox', { name: /^delivered / }).check();
    await page.getByRole('checkbox', { name: /^bounced / }).check();
    await page.getByLabel('Endpoint URL').fill('ftp://example.com/hooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('alert').filter({ hasText: 'Must be an http or https URL (got ftp)' }).waitFor();
    assert.equal(await page.getByLabel('Endpoint URL').getAttribute('aria-invalid'), 'true');
    await shoot('webhooks-error');
  });

  it('adds an endpoint for the receiver and shows its signing secret once', async () => {
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('heading', { name: `Endpoint ${receiver.url} added` }).waitFor();
    secret = (await page.locator('section[aria-labelledby="secret-title"] code.secret').textContent())!;
    assert.match(secret, SECRET);
    await page.getByRole('row', { name: new RegExp(`${receiver.url} ?delivered, bounced.*None finished yet`) }).waitFor();
    await page.getByText('No deliveries yet. Send a test event to see one here.').waitFor();
    assert.equal(await page.getByText(secret).count(), 1, 'the whole secret only in the notice');
    await shoot('webhooks-created');

    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.getByRole('row', { name: new RegExp(receiver.url) }).waitFor();
    assert.equal(await page.content().then((html) => html.includes(secret.slice(6))), false, 'not shown again');
  });

  it('sends a test event that the receiver verifies, shows the refused post with its response code, and retries it', async () => {
    await page.getByRole('button', { name: `Deliveries to ${receiver.url}` }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    const first = await waitFor(() => receiver.received[0], 'the test event at the receiver');
    const payload = verify(first);
    assert.deepEqual([payload.event, Object.keys(payload).sort()], ['test', ['event', 'id', 'timestamp', 'workspace_id']]);

    // The receiver answered 503: pending, tried once, the code shown, the next attempt after the backoff.
    await deliveryRow().locator('td[data-label="Response"]', { hasText: '503' }).waitFor();
    assert.deepEqual(await deliveryRow().locator('td').allTextContents().then((cells) => cells.slice(0, 4)), ['test', 'pending', '1', '503']);
    assert.notEqual(await deliveryRow().locator('td[data-label="Next attempt"]').textContent(), '—');
    await shoot('webhooks-test-refused');

    answer = 200;
    await page.getByRole('button', { name: /^Retry the test delivery/ }).click();
    await deliveryRow().locator('td[data-label="Status"]', { hasText: 'delivered' }).waitFor();
    assert.deepEqual(await deliveryRow().locator('td').allTextContents().then((cells) => cells.slice(0, 5)), ['test', 'delivered', '2', '200', '—']);
    assert.equal(receiver.received.length, 2);
    assert.equal(receiver.received[1]!.headers['webhook-id'], first.headers['webhook-id'], 'the same delivery, posted again');
    assert.equal(verify(receiver.received[1]!).id, payload.id);
    await page.getByRole('row', { name: new RegExp(`${receiver.url}.*100% 1 of the last 1 delivered`) }).waitFor();
    await shoot('webhooks-delivered');
  });

  it('rotates the secret after a confirmation, shows the new one once, and signs the next test event with it', async () => {
    await page.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click();
    await page.getByRole('group', { name: `Rotate secret of ${receiver.url}?` }).waitFor();
    await shoot('webhooks-rotate-confirm');
    await page.getByRole('button', { name: 'Rotate secret now' }).click();
    await page.getByRole('heading', { name: `New signing secret for ${receiver.url}` }).waitFor();
    const rotated = (await page.locator('section[aria-labelledby="secret-title"] code.secret').textContent())!;
    assert.match(rotated, SECRET);
    assert.notEqual(rotated, secret);
    await shoot('webhooks-rotated');

    await page.getByRole('button', { name: 'Send test event' }).click();
    const third = await waitFor(() => receiver.received[2], 'the test event signed with the new secret');
    assert.equal(verify(third, rotated).event, 'test');
    assert.throws(() => verify(third, secret), 'the old secret no longer verifies');
    secret = rotated;
    await page.getByRole('button', { name: 'Done' }).click();
    await page.locator('table.deliveries tbody tr').nth(1).waitFor();
    await deliveryRow().locator('td[data-label="Status"]', { hasText: 'delivered' }).waitFor();
  });

  it('shows a viewer the endpoints and deliveries without a control to change them', async () => {
    const session = await page.evaluate(() => fetch('/dashboard/api/session').then((r) => r.json()));
    const workspaceId = session.data.workspaces[0].id as string;
    const child = spawn(process.execPath, [BIN, 'user', 'create', '--email', 'vera@example.com', '--password-stdin', '--workspace', workspaceId, '--role', 'viewer'], {
      env: { ...process.env, ...store.env },
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    child.stdin.end(`${VIEWER_PASSWORD}\n`);
    assert.equal((await once(child, 'exit'))[0], 0, 'mailroom user create');

    const viewer = await chromium.newPage();
    await viewer.goto(`${server.base}/`);
    await viewer.getByLabel('E-mail address').fill('vera@example.com');
    await viewer.getByLabel('Password').fill(VIEWER_PASSWORD);
    await viewer.getByRole('button', { name: 'Sign in' }).click();
    await viewer.getByRole('link', { name: 'Webhooks' }).click();
    await viewer.getByRole('row', { name: new RegExp(receiver.url) }).waitFor();
    await viewer.getByRole('button', { name: `Deliveries to ${receiver.url}` }).click();
    await viewer.locator('table.deliveries tbody tr').nth(1).waitFor();
    for (const name of ['Add endpoint', 'Send test event', /^Rotate/, /^Retry/, /^Delete/]) {
      assert.equal(await viewer.getByRole('button', { name }).count(), 0, `no ${name} button`);
    }
    assert.equal(await viewer.getByRole('heading', { name: 'Add an endpoint' }).count(), 0);
    await shoot('webhooks-viewer', viewer);
    await viewer.close();
  });

  it('deletes the endpoint after a confirmation', async () => {
    await page.getByRole('button', { name: `Delete ${receiver.url}` }).click();
    await page.getByText('Nothing more is posted to it, and its deliveries are deleted.').waitFor();
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText('No webhook endpoints yet.').waitFor();
    assert.equal(await page.getByRole('heading', { name: /^Deliveries to/ }).count(), 0, 'its deliveries closed with it');
  });

  it('passes axe-core in every state it looked at, with no serious or critical violation', () => {
    assert.deepEqual(chromium.inaccessible, []);
  });

  it('logged no error in the browser', () => {
    // The 401 (the viewer's page, signed out) and the 400 (the ftp URL) are the test's own doing.
    assert.deepEqual(unexpectedProblems(chromium.problems, [400, 401]), []);
  });
});
