/**
 * Controls a role or the last-admin rule cannot use, in Chromium against a
 * real `mailroom serve`: the only admin's role select and Remove are disabled
 * with the reason shown, and enabled once there is a second admin; removing
 * or demoting oneself is asked in the first person and leaves the workspace's
 * view as the server now has it; a viewer is offered nothing to create,
 * change or delete on any page, and each page says who can. No request the
 * server refuses is ever made. Screenshots at 1440 and 390 pixels wide go to
 * MAILROOM_SCREENSHOTS when it is set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { createMember, createWorkspace, signInOnPage, v1Caller } from './helpers/dashboard-rig.js';
import { startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';

const PASSWORD = 'a long enough password';
const ADA = 'ada.lovelace@analytical-engines.example';
const BOB = 'bob.the.second.admin@analytical-engines.example';
const CAROL = 'carol.operations-on-call@analytical-engines.example';
const VIC = 'victoria.read-only-auditor@analytical-engines.example';
const LAST_ADMIN = 'The only admin: make someone else admin first.';

describe('controls each role can use, in Chromium', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  let chromium: TestBrowser;
  let page: Page;
  let workspaceId = '';
  let v1: ReturnType<typeof v1Caller>;
  /** Every answer of the dashboard API the server refused (4xx but the 401 before signing in). */
  const refused: string[] = [];

  const watch = (on: Page) =>
    on.on('response', (res) => {
      const status = res.status();
      if (res.url().includes('/dashboard/api/') && status >= 400 && status !== 401) refused.push(`${status} ${res.request().method()} ${res.url()}`);
    });
  const members = (on = page) => on.goto(`${server.base}/members`).then(() => on.getByRole('heading', { name: 'People in this workspace' }).waitFor());
  const roleSelect = (email: string, on = page) => on.getByRole('combobox', { name: `Role of ${email}` });
  const removeButton = (email: string, on = page) => on.getByRole('button', { name: `Remove ${email}`, exact: true });

  before(async () => {
    store = await freshStore();
    server = await startServe({ ...store.env, WEBHOOK_ALLOW_PRIVATE: 'true', UPSTREAM_ALLOW_PRIVATE: 'true', WORKER_POLL_MS: '20' });
    const { workspaceId: id, apiKey } = createWorkspace(store.env, 'Analytical Engines Ltd');
    workspaceId = id;
    createMember(store.env, workspaceId, ADA, 'admin', PASSWORD);
    createMember(store.env, workspaceId, VIC, 'viewer', PASSWORD);
    // Something in every list, so that a row's Delete or Remove would show if it were offered.
    v1 = v1Caller(server.base, apiKey);
    for (const [path, body] of [
      ['/v1/api-keys', { name: 'Production deploys (eu-west-1)' }],
      ['/v1/domains', { domain: 'transactional.eu-west.analytical-engines.example' }],
      ['/v1/webhooks', { url: 'http://127.0.0.1:9/hooks/analytical-engines/mailroom-events' }],
      ['/v1/suppressions', { email: 'unsubscribed.customer.with.a.long.address@mail.example' }],
      ['/v1/upstreams', { name: 'Backup relay (eu-central-1)', type: 'smtp', url: 'smtp://relay-user:relay-password@127.0.0.1:9' }],
    ] as const) {
      const res = await v1('POST', path, body);
      assert.ok(res.status < 300, `${path}: ${JSON.stringify(res.body)}`);
    }
    chromium = await launchBrowser();
    page = chromium.page;
    watch(page);
    await signInOnPage(page, server.base, ADA, PASSWORD);
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await store?.drop();
  });

  it("disables the only admin's role select and Remove with the reason shown, and enables them once there is a second admin", async () => {
    await members();
    for (const control of [roleSelect(ADA), removeButton(ADA)]) {
      assert.equal(await control.isDisabled(), true);
      assert.equal(await page.locator(`[id="${await control.getAttribute('aria-describedby')}"]`).textContent(), LAST_ADMIN, 'the reason, named by the control');
    }
    assert.equal(await page.getByText(LAST_ADMIN).isVisible(), true, 'and shown, not only told to screen readers');
    assert.equal(await roleSelect(VIC).isDisabled(), false, "another member's role can change");
    await chromium.shoot('members-only-admin');

    createMember(store.env, workspaceId, BOB, 'admin', PASSWORD);
    await members();
    for (const email of [ADA, BOB]) {
      assert.deepEqual([await roleSelect(email).isDisabled(), await removeButton(email).isDisabled()], [false, false], `${email} with a second admin`);
      assert.equal(await roleSelect(email).getAttribute('aria-describedby'), null);
    }
    assert.equal(await page.getByText(LAST_ADMIN).count(), 0);
    await chromium.shoot('members-two-admins');

    // Demoting the second admin makes Ada the only one again: her controls lock as the list is read again.
    await roleSelect(BOB).selectOption('viewer');
    await page.getByText(LAST_ADMIN).waitFor();
    assert.equal(await roleSelect(ADA).isDisabled(), true);
    await roleSelect(BOB).selectOption('admin');
    await page.getByText(LAST_ADMIN).waitFor({ state: 'detached' });
  });

  it('asks an admin removing themselves in the first person, then leaves the workspace’s view', async () => {
    const bob = await chromium.newPage();
    watch(bob);
    await signInOnPage(bob, server.base, BOB, PASSWORD);
    await members(bob);
    await removeButton(BOB, bob).click();
    const asked = bob.getByRole('group', { name: `Remove ${BOB}?` });
    assert.equal(await asked.locator('span').first().textContent(), 'You lose access to this workspace at once.');
    await chromium.shoot('members-remove-yourself', bob);
    await asked.getByRole('button', { name: 'Remove myself' }).click();
    await bob.getByRole('status').filter({ hasText: 'You are no longer a member of Analytical Engines Ltd.' }).waitFor();
    await bob.getByText('You are not a member of any workspace yet.').waitFor();
    assert.equal(new URL(bob.url()).pathname, '/');
    assert.equal(await bob.getByRole('combobox', { name: 'Workspace' }).count(), 0, 'no workspace left to switch to');
    await bob.context().close();

    await members();
    await page.getByRole('row', { name: new RegExp(BOB.replace(/\./g, '\\.')) }).waitFor({ state: 'detached' });
    assert.equal(await roleSelect(ADA).isDisabled(), true, 'the only admin again');
  });

  it('asks an admin demoting themselves first, then shows the page as their new role sees it', async () => {
    createMember(store.env, workspaceId, CAROL, 'admin', PASSWORD);
    await members();
    await roleSelect(ADA).selectOption('developer');
    const asked = page.getByRole('group', { name: 'Make yourself developer?' });
    await asked.getByText('You stop being an admin of this workspace at once.').waitFor();
    assert.equal(await roleSelect(ADA).inputValue(), 'admin', 'nothing changed before the answer');
    await asked.getByRole('button', { name: 'Make me developer' }).click();
    await page.getByText('You are a developer in this workspace: admins change roles, remove members and invite people.').waitFor();
    assert.equal(await page.getByRole('combobox', { name: /^Role of / }).count(), 0, 'no role select for a developer');
    assert.equal(await page.getByRole('button', { name: /^Remove / }).count(), 0);
    assert.equal(await page.getByRole('heading', { name: 'Invite someone' }).count(), 0);
    assert.match((await page.getByRole('row', { name: new RegExp(ADA.replace(/\./g, '\\.')) }).textContent())!, /developer/);
  });

  it('offers a viewer nothing to create, change or delete, and says on each page who can', async () => {
    const vic = await chromium.newPage();
    watch(vic);
    await signInOnPage(vic, server.base, VIC, PASSWORD);
    const pages = [
      { path: '/api-keys', ready: 'Production deploys (eu-west-1)', who: 'admins and developers create and delete API keys' },
      { path: '/domains', ready: 'transactional.eu-west.analytical-engines.example', who: 'admins and developers add, verify, route and delete domains and set their tracking' },
      { path: '/upstreams', ready: 'Backup relay (eu-central-1)', who: 'admins and developers add, test, change and delete upstreams' },
      { path: '/webhooks', ready: 'http://127.0.0.1:9/hooks/analytical-engines/mailroom-events', who: 'admins and developers add endpoints, send test events, retry deliveries, rotate secrets and delete endpoints' },
      { path: '/suppressions', ready: 'unsubscribed.customer.with.a.long.address@mail.example', who: 'admins and developers add and remove addresses' },
      { path: '/logs', ready: 'Log entries', who: 'admins and developers send test e-mails from here' },
      { path: '/members', ready: VIC, who: 'admins change roles, remove members and invite people' },
      { path: '/settings', ready: 'Your role', who: 'admins rename it' },
    ];
    for (const { path, ready, who } of pages) {
      await vic.goto(`${server.base}${path}`);
      await vic.getByText(ready).first().waitFor();
      await vic.getByText(`You are a viewer in this workspace: ${who}.`).waitFor();
      const offered = await vic
        .locator('main')
        .getByRole('button', { name: /^(Delete|Remove|Add|Create key|Suppress|Send|Verify|Rotate|Retry|Rename|Invite|Revoke|Test|Edit)/ })
        .allTextContents();
      assert.deepEqual(offered, [], `${path}: nothing the server would refuse a viewer`);
      assert.equal(await vic.getByRole('combobox', { name: /^Role of / }).count(), 0, `${path}: no role select`);
      await chromium.shoot(`viewer${path.replace('/', '-')}`, vic);
    }
    // Opening a webhook shows its deliveries; its test, rotation and delete stay away.
    await vic.goto(`${server.base}/webhooks`);
    await vic.getByRole('button', { name: /^Deliveries to / }).first().click();
    await vic.getByText('Events show here once they are sent.').waitFor();
    assert.deepEqual(await vic.locator('main').getByRole('button', { name: /^(Send a test|Rotate|Delete)/ }).allTextContents(), []);

    // A message: its scheduled send cannot be canceled, nor its webhook deliveries retried, by a viewer, and the page says who can.
    const from = 'Analytical Engines Billing <billing@sandbox.mailroom.test>';
    const later = await v1('POST', '/v1/send', { from_email: from, to: ['later@example.com'], subject: 'Your renewal', text: 'Soon.', scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    await vic.goto(`${server.base}/messages/${later.body.data.message_id}`);
    await vic.getByText('You are a viewer in this workspace: admins and developers can cancel it until then.').waitFor();
    assert.equal(await vic.getByRole('button', { name: /^Cancel/ }).count(), 0);
    await chromium.shoot('viewer-message-scheduled', vic);
    const sent = await v1('POST', '/v1/send', { from_email: from, to: ['delivered@simulator.mailroom.test'], subject: 'Your receipt', text: 'Thanks.' });
    await vic.goto(`${server.base}/messages/${sent.body.data.message_id}`);
    await vic.locator('table.message-hooks tbody tr').first().waitFor();
    await vic.getByText('You are a viewer in this workspace: admins and developers retry deliveries.').waitFor();
    assert.equal(await vic.getByRole('button', { name: /^Retry/ }).count(), 0);
    await chromium.shoot('viewer-message-webhooks', vic);
    await vic.context().close();
  });

  it('never asked the server for what it refuses, passed axe-core and logged no error', () => {
    assert.deepEqual(refused, []);
    assert.deepEqual(chromium.inaccessible, []);
    assert.deepEqual(unexpectedProblems(chromium.problems, [401]), []);
  });
});
