/**
 * The dashboard's guards and its pages about mail, in Chromium against a real
 * `mailroom serve` delivering to a real SMTP relay: the Overview and Logs
 * pages, mail-derived text (a subject, a relay's reply) carrying script
 * payloads shown as text, the sign-in lock-out, a password change ending the
 * user's other session, a cross-site request refused, and another
 * workspace's ids answering 404.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { startRefusingRelay, type TestRelay } from './helpers/refusing-relay.js';
import { BIN, mailroomCommand, startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const PASSWORD = 'a long enough password';
/** Each payload sets window.__pwned if it ever runs; an <img> element in the page would show it was parsed as HTML. */
const SUBJECT = `<img src=x onerror="window.__pwned='subject'"><script>window.__pwned='subject'</script>`;
const REPLY = `5.1.1 <img src=x onerror="window.__pwned='reply'"> no such user`;
/** A name people give: shown in the workspace switcher of everyone in it. */
const WORKSPACE = `<img src=x onerror="window.__pwned='workspace'">Bob & Co`;

describe('the dashboard in Chromium: guards, logs and mail-derived text', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let dns: TestDnsServer;
  let relay: TestRelay;
  let server: ServeProcess;
  let chromium: TestBrowser;
  let page: Page;
  let attacker: Server;
  const workspace = { ada: '', bob: '' };
  let adaKey = '';

  function createUser(email: string, workspaceId?: string) {
    const args = ['user', 'create', '--email', email, '--password-stdin', ...(workspaceId ? ['--workspace', workspaceId, '--role', 'admin'] : [])];
    const run = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...store.env }, input: `${PASSWORD}\n`, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
  }

  function newWorkspace(name: string) {
    const run = mailroomCommand(['workspace', 'create', '--name', name, '--json'], store.env);
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as { workspace_id: string; api_key: string };
  }

  const v1 = (method: string, path: string, body?: unknown) =>
    fetch(`${server.base}${path}`, {
      method,
      headers: { 'x-api-key': adaKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(
      async (res) => ({ status: res.status, body: (await res.json()) as { data: any } }),
    );

  async function signIn(on: Page, email: string, password = PASSWORD) {
    await on.goto(server.base);
    await on.getByLabel('E-mail address').fill(email);
    await on.getByLabel('Password').fill(password);
    await on.getByRole('button', { name: 'Sign in' }).click();
  }

  /** A call to the dashboard API from the page, as its own script would make it, with or without the session's CSRF token. */
  const fromPage = (on: Page, method: string, path: string, withCsrf = true) =>
    on.evaluate(
      async ({ method, path, withCsrf }) => {
        const session = await (await fetch('/dashboard/api/session')).json();
        const body = method === 'POST' ? JSON.stringify({ name: 'forged' }) : undefined;
        const headers: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
        if (withCsrf) headers['x-csrf-token'] = session.data.csrf_token;
        const res = await fetch(`/dashboard/api${path}`, { method, headers, body });
        return { status: res.status, body: await res.json() };
      },
      { method, path, withCsrf },
    );

  before(async () => {
    store = await freshStore();
    dns = await startDnsServer();
    relay = await startRefusingRelay({ rcptTo: (address) => (address.startsWith('refused@') ? { code: 550, text: REPLY } : undefined) });
    server = await startServe({ ...store.env, DNS_SERVERS: dns.address, MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${relay.port}`, WORKER_POLL_MS: '20' });
    const ada = newWorkspace('Acme');
    workspace.ada = ada.workspace_id;
    adaKey = ada.api_key;
    workspace.bob = newWorkspace(WORKSPACE).workspace_id;
    createUser('ada@example.com', workspace.ada);
    createUser('bob@example.com', workspace.bob);
    createUser('cyd@example.com', workspace.ada);

    // A verified sending domain, and a message to two recipients: the relay takes one and refuses the other.
    const added = await v1('POST', '/v1/domains', { domain: 'payload.example' });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const domain = added.body.data;
    const dkim = domain.records.find((r: { purpose: string }) => r.purpose === 'dkim');
    dns.setTxt(dkim.name, [dkim.value]);
    assert.equal((await v1('POST', `/v1/domains/${domain.id}/verify`)).body.data.status, 'verified');
    const sent = await v1('POST', '/v1/send', { to: ['taken@elsewhere.example', 'refused@elsewhere.example'], from_email: 'news@payload.example', subject: SUBJECT, text: 'Hello' });
    assert.equal(sent.body.data.status, 'sent');
    // Asked once a second: the key's limit is 60 requests a minute.
    await waitFor(async () => (await v1('GET', '/v1/send/logs?status=bounced')).body.data?.length === 1, 'the refused recipient bounced', { intervalMs: 1000 });

    chromium = await launchBrowser();
    page = chromium.page;
    // A page on another port of the same host: same site for the cookie's SameSite=Lax, another origin.
    attacker = createServer((req, res) => {
      const to = new URL(req.url!, 'http://attacker').searchParams.get('to')?.replace(/"/g, '&quot;');
      if (!to) return void res.writeHead(404).end(); // the browser's own /favicon.ico
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>elsewhere</title><form method="post" enctype="text/plain" action="${to}"><input type="hidden" name='{"name":"forged","x":"' value='"}'><button>Win a prize</button></form>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await relay?.close();
    await dns?.close();
    attacker?.close();
    await store?.drop();
  });

  it('lands on the Overview with the six statistics, each leading to its logs', async () => {
    await signIn(page, 'ada@example.com');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const figure = (label: string) => page.getByRole('link', { name: new RegExp(`^${label}`) });
    await waitFor(async () => (await figure('Sent').textContent()) === 'Sent2', 'the sent figure');
    assert.equal(await figure('Bounced').textContent(), 'Bounced1');
    assert.equal(await figure('Delivered').textContent(), 'Delivered0', 'a relay taking mail is not a delivery');
    await page.getByRole('button', { name: '30 days' }).click();
    assert.equal(await page.getByRole('button', { name: '30 days' }).getAttribute('aria-pressed'), 'true');
    await chromium.shoot('overview');
    await figure('Bounced').click();
    await page.getByRole('heading', { name: 'Logs' }).waitFor();
    assert.equal(new URL(page.url()).searchParams.get('status'), 'bounced', 'the figure leads to its logs (with its type and the period start)');
  });

  it("shows the logs with a bounce's reply inline, and a subject and a reply carrying script as text", async () => {
    // Addresses cannot carry markup to the page: the API refuses them, and logs keep bare addresses.
    const markup = await v1('POST', '/v1/send', { to: ['"<script>window.__pwned=1</script>"@example.com'], from_email: 'news@payload.example', subject: 'x', text: 'x' });
    assert.equal(markup.status, 400);
    const row = page.getByRole('row', { name: /refused@elsewhere\.example/ });
    await row.waitFor();
    assert.equal(await page.getByRole('row').count(), 2, 'the header and the one bounced entry');
    assert.match((await row.locator('.log-error').textContent())!, /5\.1\.1 <img src=x onerror="window\.__pwned='reply'"> no such user/);
    assert.match((await row.textContent())!, /<img src=x onerror=.*<script>window\.__pwned='subject'<\/script>/);
    await page.getByRole('combobox', { name: 'Status' }).selectOption('');
    await page.getByRole('row', { name: /taken@elsewhere\.example/ }).waitFor();
    await waitFor(() => new URL(page.url()).searchParams.get('status') === null, 'the filter gone from the address');
    await page.reload();
    await page.getByRole('row', { name: /taken@elsewhere\.example/ }).waitFor();
    assert.equal(await page.locator('main img, main script').count(), 0, 'nothing from mail became an element');
    assert.equal(await page.evaluate(() => (window as { __pwned?: string }).__pwned), undefined, 'no payload ran');
    await chromium.shoot('logs');
  });

  it('refuses a cross-site request carrying the session cookie, and a request without the CSRF token', async () => {
    const before = (await v1('GET', '/v1/api-keys')).body.data.length;
    // A form on another origin of the same site posts JSON-looking text (the classic enctype=text/plain trick)
    // to the dashboard API. The cookie goes along (same site, so SameSite=Lax does not stop it): the answer
    // says the request was signed in and refused for its origin, not for want of a session.
    const elsewhere = await page.context().newPage();
    await elsewhere.goto(`http://127.0.0.1:${(attacker.address() as { port: number }).port}/?to=${encodeURIComponent(`${server.base}/dashboard/api/workspaces/${workspace.ada}/api-keys`)}`);
    await elsewhere.getByRole('button', { name: 'Win a prize' }).click();
    await elsewhere.getByText('Cross-origin request refused').waitFor();
    assert.deepEqual(JSON.parse((await elsewhere.locator('body').textContent())!), { success: false, error: 'Cross-origin request refused' });
    await elsewhere.close();
    const withoutToken = await fromPage(page, 'POST', `/workspaces/${workspace.ada}/api-keys`, false);
    assert.deepEqual(withoutToken, { status: 403, body: { success: false, error: 'CSRF token missing or wrong' } });
    assert.equal((await v1('GET', '/v1/api-keys')).body.data.length, before, 'no key was made');
  });

  it("answers 404 for another workspace's ids, and changes nothing there", async () => {
    const bob = await chromium.newPage();
    await signIn(bob, 'bob@example.com');
    await bob.getByRole('heading', { name: 'Overview' }).waitFor();
    const adaKeyId = (await v1('GET', '/v1/api-keys')).body.data[0].id;
    for (const [method, path] of [
      ['GET', `/workspaces/${workspace.ada}/logs`],
      ['GET', `/workspaces/${workspace.ada}/api-keys`],
      ['POST', `/workspaces/${workspace.ada}/api-keys`],
      ['DELETE', `/workspaces/${workspace.ada}/api-keys/${adaKeyId}`],
    ] as const) {
      assert.deepEqual(await fromPage(bob, method, path), { status: 404, body: { success: false, error: 'Workspace not found' } }, `${method} ${path}`);
    }
    // Ada's key's id named in Bob's own workspace: not found there either.
    assert.deepEqual(await fromPage(bob, 'DELETE', `/workspaces/${workspace.bob}/api-keys/${adaKeyId}`), { status: 404, body: { success: false, error: 'API key not found' } });
    assert.equal((await v1('GET', '/v1/api-keys')).status, 200, "Ada's key still works");
    assert.equal(await bob.getByRole('combobox', { name: 'Workspace' }).locator('option:checked').textContent(), WORKSPACE, 'the name as text');
    assert.equal(await bob.evaluate(() => (window as { __pwned?: string }).__pwned), undefined);
    await bob.context().close();
  });

  it('ends the other session when the password changes', async () => {
    const second = await chromium.newPage();
    await signIn(second, 'ada@example.com');
    await second.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password (at least 10 characters)').fill('another long password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();
    await second.reload();
    await second.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await second.context().close();
  });

  it('locks sign-in for an address after 10 failures from this browser, even with the right password', async () => {
    const locked = await chromium.newPage();
    await locked.goto(server.base);
    const button = locked.getByRole('button', { name: 'Sign in', exact: true });
    for (let i = 1; i <= 10; i++) {
      await locked.getByLabel('E-mail address').fill('cyd@example.com');
      await locked.getByLabel('Password').fill(`wrong password ${i}`);
      await button.click();
      // The button reads "Signing in…" until the answer is in; a click on it then would be lost.
      await button.waitFor();
      assert.equal(await locked.getByRole('alert').textContent(), 'Wrong e-mail address or password', `try ${i}`);
    }
    await locked.getByLabel('Password').fill(PASSWORD);
    await button.click();
    await locked.getByRole('alert').filter({ hasText: /Too many failed sign-ins/ }).waitFor();
    await chromium.shoot('sign-in-locked', locked);
    assert.equal(await locked.getByRole('heading', { name: 'Sign in' }).isVisible(), true, 'still signed out');
    await locked.context().close();
  });

  it('passes axe-core on every page it looked at, and logged no unexpected error', () => {
    assert.deepEqual(chromium.inaccessible, []);
    // 401: signed out; 403: the refused requests; 404: the other workspace's ids; 429: the lock-out.
    assert.deepEqual(unexpectedProblems(chromium.problems, [401, 403, 404, 429]), []);
  });
});
