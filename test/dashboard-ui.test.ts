/**
 * The dashboard in a real browser: Debian's Chromium driven by playwright-core
 * against a real `mailroom serve` process (as `npm start` runs it), from the
 * setup link its log prints to signing in, changing the password and signing
 * out. Screenshots at 1440 and 390 pixels wide go to MAILROOM_SCREENSHOTS when
 * it is set (for a person to look at).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { UI_PAGES } from '../src/dashboard/ui.js';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const PASSWORD = 'first admin password';

describe('the dashboard in Chromium', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  let dns: TestDnsServer;
  let chromium: TestBrowser;
  let page: Page;
  const shoot = (name: string) => chromium.shoot(name);

  before(async () => {
    store = await freshStore();
    dns = await startDnsServer();
    server = await startServe({ ...store.env, DNS_SERVERS: dns.address });
    chromium = await launchBrowser();
    page = chromium.page;
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await dns?.close();
    await store?.drop();
  });

  it('serves every page of the UI with its security headers, and nothing from elsewhere', async () => {
    for (const path of UI_PAGES) {
      const res = await fetch(`${server.base}${path}`);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'.*frame-ancestors 'none'|frame-ancestors 'none'.*script-src 'self'/);
      const html = await res.text();
      assert.doesNotMatch(html, /https?:\/\//, 'no CDN, no font service');
    }
    const icon = await fetch(`${server.base}/favicon.svg`);
    assert.deepEqual([icon.status, icon.headers.get('content-type')], [200, 'image/svg+xml'], 'an icon of its own: no browser asks /favicon.ico of the API');
    assert.equal((await fetch(`${server.base}/v1/nothing-here`)).status, 401, '/v1 keeps its guard');
  });

  it('creates the first admin and workspace from the link in the log, and shows the first API key once', async () => {
    await waitFor(() => /open (http:\/\/\S+\/setup\?token=\S+) within an hour/.exec(server.output()), 'the setup link in the log');
    const link = /open (http:\/\/\S+\/setup\?token=\S+) within an hour/.exec(server.output())![1]!;
    await page.goto(link);
    await page.getByRole('heading', { name: 'Set up Mailroom' }).waitFor();
    await shoot('setup');
    await page.getByLabel('Your e-mail address').fill('ada@example.com');
    await page.getByLabel('Password (at least 10 characters)').fill('too short');
    await page.getByLabel('Workspace name').fill('Acme');
    // The browser's own check (minlength) stops a short password before the server sees it.
    await page.getByRole('button', { name: 'Create account and workspace' }).click();
    assert.equal(await page.getByRole('heading', { name: 'Set up Mailroom' }).isVisible(), true);
    await page.getByLabel('Password (at least 10 characters)').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account and workspace' }).click();

    await page.getByRole('heading', { name: "The workspace's first API key" }).waitFor();
    const apiKey = (await page.locator('code.secret').first().textContent())!;
    assert.match(apiKey, /^mr_/);
    assert.equal(new URL(page.url()).pathname, '/');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Workspace' }).inputValue().then(Boolean), true);
    await shoot('first-key');
    const keys = await fetch(`${server.base}/v1/api-keys`, { headers: { 'x-api-key': apiKey } });
    assert.equal(keys.status, 200, 'the key shown works on /v1');
  });

  it('signs out, refuses a wrong password with the server\'s sentence, and signs in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('E-mail address').fill('ada@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong e-mail address or password' }).waitFor();
    await shoot('sign-in-refused');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.reload();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    assert.equal(await page.getByText('ada@example.com').first().isVisible(), true, 'still signed in after a reload');
  });

  it('changes the password, with the error next to the field first', async () => {
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password (at least 10 characters)').fill('short');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').filter({ hasText: 'Must be at least 10 characters long' }).waitFor();
    await shoot('settings-error');
    await page.getByLabel('New password (at least 10 characters)').fill('a brand new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();
    await shoot('settings');
  });

  it('signs in with the keyboard alone', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.type('ada@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type('a brand new password');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  it('creates an API key with the keyboard alone, shows it once, and the key works on /v1 until deleted', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'Keys of this workspace' }).waitFor();
    // Tab to the Name field from the top of the page, type, and press Enter: no mouse.
    await page.locator('body').focus();
    for (let i = 0; i < 20 && !(await page.getByLabel('Name').evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
    assert.equal(await page.getByLabel('Name').evaluate((el) => el === document.activeElement), true, 'the Name field is reachable by Tab');
    await page.keyboard.type('Deploys');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Key “Deploys” created' }).waitFor();
    const key = (await page.locator('.notice-card code.secret').textContent())!;
    assert.equal((await fetch(`${server.base}/v1/api-keys`, { headers: { 'x-api-key': key } })).status, 200);
    await page.getByRole('row', { name: /Deploys/ }).waitFor();
    assert.match((await page.getByRole('row', { name: /Deploys/ }).textContent())!, /Full access/, 'the list shows the permission');
    assert.equal(await page.getByText(key).count(), 1, 'the whole key only in the notice, not in the table');
    await shoot('api-keys');

    await page.getByRole('button', { name: 'Delete Deploys' }).click();
    await page.getByRole('button', { name: 'Delete “Deploys”' }).click();
    await page.getByRole('row', { name: /Deploys/ }).waitFor({ state: 'detached' });
    assert.equal((await fetch(`${server.base}/v1/api-keys`, { headers: { 'x-api-key': key } })).status, 401, 'refused at once');

    // A sending key, chosen with the labelled Access field: shown as such, and it can only send.
    await page.getByLabel('Name').fill('Shop');
    await page.getByLabel('Access').selectOption({ label: 'Sending only' });
    await page.getByLabel('Sends from').waitFor();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Key “Shop” created' }).waitFor();
    const sending = (await page.locator('.notice-card code.secret').textContent())!;
    assert.match((await page.getByRole('row', { name: /Shop/ }).textContent())!, /Sending only/);
    assert.equal((await fetch(`${server.base}/v1/api-keys`, { headers: { 'x-api-key': sending } })).status, 403, 'a sending key only sends');
    await page.getByRole('button', { name: 'Delete Shop' }).click();
    await page.getByRole('button', { name: 'Delete “Shop”' }).click();
    await page.getByRole('row', { name: /Shop/ }).waitFor({ state: 'detached' });
  });

  it('adds a domain, shows its records with a copy button each, and verifies it once the DKIM record is published', async () => {
    await page.getByRole('link', { name: 'Domains' }).click();
    await page.getByText('No domains yet.').waitFor();
    await page.getByRole('textbox', { name: 'Domain' }).fill('mail.acme.example');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { name: 'DNS records of mail.acme.example' }).waitFor();
    const rows = page.locator('section[aria-labelledby="records-title"] tbody tr');
    assert.equal(await rows.count(), await page.locator('section[aria-labelledby="records-title"]').getByRole('button', { name: 'Copy' }).count());
    const dkim = rows.filter({ hasText: 'DKIM' });
    const name = (await dkim.locator('td[data-label="Name"] code').textContent())!;
    const value = (await dkim.locator('code.record-value').textContent())!;
    assert.match(name, /\._domainkey\.mail\.acme\.example$/);

    await page.getByRole('button', { name: 'Verify' }).click();
    const unpublished = page.locator('section[aria-labelledby="records-title"]').getByRole('alert');
    await unpublished.waitFor();
    assert.match((await unpublished.textContent())!, /No DKIM record found|DNS lookup/, 'not verified before the record is published');
    assert.equal(await dkim.locator('td[data-label="Found"]').textContent(), 'Not found');
    dns.setTxt(name, [value]);
    dns.setTxt('mail.acme.example', ['v=spf1 include:_spf.elsewhere.example -all']);
    await page.getByRole('button', { name: 'Verify' }).click();
    await dkim.locator('td[data-label="Found"]').getByText('Matches').waitFor();
    const spf = rows.filter({ hasText: 'SPF for the domain' }).locator('td[data-label="Found"]');
    assert.match((await spf.textContent())!, /^Differs Published: v=spf1 include:_spf\.elsewhere\.example -all$/, 'what is published instead is shown');
    await page.locator('section[aria-labelledby="records-title"] .badge-verified').first().waitFor();
    await page.getByRole('row', { name: /mail\.acme\.example.*verified/ }).waitFor();
    await shoot('domains');
  });

  it('suppresses an address by hand, finds it, and removes it after a confirmation', async () => {
    await page.getByRole('link', { name: 'Suppressions' }).click();
    await page.getByText('No suppressed addresses.').waitFor();
    await page.getByLabel('Address to suppress').fill('Bounced@Example.com');
    await page.getByRole('button', { name: 'Suppress' }).click();
    await page.getByRole('row', { name: /bounced@example\.com.*Added by hand/ }).waitFor();
    await page.getByRole('textbox', { name: 'E-mail address' }).fill('BOUNCED@example.com');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.locator('table.found').getByRole('row', { name: /bounced@example\.com/ }).waitFor();
    await shoot('suppressions');
    await page.locator('table.found').getByRole('button', { name: 'Remove bounced@example.com' }).click();
    await page.locator('table.found').getByRole('button', { name: 'Remove bounced@example.com' }).click();
    await page.getByRole('status').filter({ hasText: 'is not on the suppression list' }).waitFor();
    await page.getByText('No suppressed addresses.').waitFor();
  });

  it("shows the members; the only admin's role select and Remove are disabled, with the reason beside them", async () => {
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { name: 'People in this workspace' }).waitFor();
    await page.getByRole('row', { name: /ada@example\.com \(you\)/ }).waitFor();
    const select = page.getByRole('combobox', { name: 'Role of ada@example.com' });
    const remove = page.getByRole('button', { name: 'Remove ada@example.com' });
    assert.deepEqual([await select.isDisabled(), await remove.isDisabled()], [true, true], 'not offered, then refused');
    await page.getByText('The only admin: make someone else admin first.').waitFor();
    for (const control of [select, remove]) {
      const reason = await control.getAttribute('aria-describedby');
      assert.equal(await page.locator(`[id="${reason}"]`).textContent(), 'The only admin: make someone else admin first.');
    }
    await shoot('members');
  });

  it('creates a second workspace from Settings, switches to it, shows its first key, and renames it', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Workspace name').fill('Side project');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: "The workspace's first API key" }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Workspace' }).locator('option:checked').textContent(), 'Side project');
    const key = (await page.locator('code.secret').first().textContent())!;
    const keys = await fetch(`${server.base}/v1/api-keys`, { headers: { 'x-api-key': key } });
    assert.equal(keys.status, 200);
    await page.getByLabel('New name').fill('Side project, renamed');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('definition').filter({ hasText: 'Side project, renamed' }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Workspace' }).locator('option:checked').textContent(), 'Side project, renamed', 'the switcher follows');
    await page.getByRole('combobox', { name: 'Workspace' }).selectOption({ label: 'Acme' });
    await page.getByText('Acme', { exact: true }).last().waitFor();
  });

  it('passes axe-core on every page it looked at, with no serious or critical violation', () => {
    assert.deepEqual(chromium.inaccessible, []);
  });

  it('logged no error in the browser (no CSP refusal, no failed script)', () => {
    // The API's 401 (signed out) and 400 (the short password) answers are the test's own doing; anything else is not.
    assert.deepEqual(unexpectedProblems(chromium.problems, [401, 400]), []);
  });
});
