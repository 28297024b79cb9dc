/**
 * The Upstreams page and the Domains page's route editor in Chromium against a
 * real `mailroom serve`, whose upstreams are a real SMTP server on loopback
 * asking for AUTH (smtp-server) and the SES emulator: adding a relay runs its
 * connection test (passing with the right password, failing with the relay's
 * 535 with a wrong one); changing one with the password left blank keeps it;
 * no password or secret key reaches the page or any dashboard API answer; a
 * domain's route is set to two upstreams in order, mail from it goes through
 * them and the last hour's attempts show; deleting is refused while a domain
 * routes through an upstream (the server's 409 shown) and done once it does
 * not; a viewer reads it all and changes nothing. Screenshots at 1440 and 390
 * pixels wide go to MAILROOM_SCREENSHOTS when it is set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { createMember, createWorkspace, signInOnPage, v1Caller } from './helpers/dashboard-rig.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { startSesEmulator, TEST_ACCESS_KEY_ID, TEST_REGION, TEST_SECRET_ACCESS_KEY, type SesEmulator } from './helpers/ses-emulator.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const PASSWORD = 'a long enough password';
const ADMIN = 'ada.lovelace@analytical-engines.example';
const VIEWER = 'victoria.read-only-auditor@analytical-engines.example';
const RELAY_USER = 'mailroom-eu';
const RELAY_PASSWORD = 'Relay-Pa55word-0f-the-eu-relay';
const WRONG_PASSWORD = 'not-the-relay-password-at-all';
const DOMAIN = 'billing.analytical-engines.example';
const OTHER_DOMAIN = 'alerts.analytical-engines.example';
/** The sink refuses this recipient: a permanent failure in the last hour's counts. */
const REFUSED = 'no-such-user@customers.example';

describe('the Upstreams page and domain routes in Chromium', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  let sink: SmtpSink;
  let ses: SesEmulator;
  let dns: TestDnsServer;
  let chromium: TestBrowser;
  let page: Page;
  let v1: ReturnType<typeof v1Caller>;
  const domainIds: Record<string, string> = {};
  /** Every answer of the dashboard API, read as it came. */
  const answers: Promise<string>[] = [];

  const upstreamRow = (name: string, on = page) => on.locator('table.upstreams tbody tr:not(.outcome-row)').filter({ has: on.locator('td[data-label="Upstream"] .upstream-name', { hasText: new RegExp(`^${name.replace(/[()]/g, '\\$&')}$`) }) });
  const outcomeUnder = (name: string) => upstreamRow(name).locator('xpath=following-sibling::tr[1][contains(@class, "outcome-row")]');
  const upstreamsPage = async (on = page) => {
    await on.goto(`${server.base}/upstreams`);
    await on.getByRole('heading', { name: 'Upstreams of this workspace' }).waitFor();
  };
  const idOf = async (name: string) => ((await v1('GET', '/v1/upstreams')).body.data as { id: string; name: string }[]).find((u) => u.name === name)!.id;

  async function addRelay(name: string, password: string) {
    await page.getByLabel('Type').selectOption('smtp');
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Relay URL').fill(`smtp://${RELAY_USER}@127.0.0.1:${sink.port}`);
    await page.getByLabel('Password').fill(password);
    await page.getByLabel('STARTTLS').selectOption('opportunistic');
    await page.getByRole('button', { name: 'Add upstream' }).click();
    return page.getByRole('region', { name: `Added ${name}` });
  }

  before(async () => {
    store = await freshStore();
    sink = await startSmtpSink({ auth: { user: RELAY_USER, pass: RELAY_PASSWORD }, policy: (to) => (to === REFUSED ? { code: 550, text: '5.1.1 No such user here' } : undefined) });
    ses = await startSesEmulator();
    dns = await startDnsServer();
    server = await startServe({ ...store.env, UPSTREAM_ALLOW_PRIVATE: 'true', DNS_SERVERS: dns.address, WORKER_POLL_MS: '20' });
    const { workspaceId, apiKey } = createWorkspace(store.env, 'Analytical Engines Ltd');
    createMember(store.env, workspaceId, ADMIN, 'admin', PASSWORD);
    createMember(store.env, workspaceId, VIEWER, 'viewer', PASSWORD);
    v1 = v1Caller(server.base, apiKey);
    for (const domain of [DOMAIN, OTHER_DOMAIN]) {
      const added = (await v1('POST', '/v1/domains', { domain })).body.data;
      domainIds[domain] = added.id;
      const dkim = (added.records as { purpose: string; name: string; value: string }[]).find((r) => r.purpose === 'dkim')!;
      dns.setTxt(dkim.name, [dkim.value]);
      assert.equal((await v1('POST', `/v1/domains/${added.id}/verify`)).body.data.status, 'verified');
    }
    chromium = await launchBrowser();
    page = chromium.page;
    page.on('response', (res) => void (res.url().includes('/dashboard/api/') && answers.push(res.text().catch(() => ''))));
    await signInOnPage(page, server.base, ADMIN, PASSWORD);
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await sink?.close();
    await ses?.close();
    await dns?.close();
    await store?.drop();
  });

  it('lists Upstreams after Domains in the navigation, with none yet', async () => {
    const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    assert.equal(nav.indexOf('Upstreams'), nav.indexOf('Domains') + 1, nav.join(', '));
    await page.getByRole('link', { name: 'Upstreams' }).click();
    await page.getByRole('heading', { name: 'Upstreams', level: 1 }).waitFor();
    await page.getByText("No upstreams yet: every domain sends through the server's. Add one to route a domain through it.").waitFor();
    await chromium.shoot('upstreams-empty');
  });

  it('adds a relay that asks for AUTH and shows its connection test passing, the password masked', async () => {
    const added = await addRelay('EU relay (primary)', RELAY_PASSWORD);
    await added.getByText(/^✓?\s*Connection test passed/).waitFor();
    assert.match((await added.locator('.test-outcome').textContent())!, /Connected, greeted and authenticated/);
    assert.deepEqual(sink.authenticated, [RELAY_USER], 'the relay saw the AUTH');
    const row = upstreamRow('EU relay (primary)');
    assert.equal(await row.locator('td[data-label="Upstream"] code.upstream-target').textContent(), `smtp://${RELAY_USER}:********@127.0.0.1:${sink.port}`);
    assert.deepEqual(await row.locator('td[data-label="Health"] .badge').textContent(), 'Healthy');
    await chromium.shoot('upstreams-added');
    await added.getByRole('button', { name: 'Done' }).click();
  });

  it("adds one with a wrong password and shows the test failing with the relay's 535, then mends it", async () => {
    const added = await addRelay('EU relay (backup)', WRONG_PASSWORD);
    await added.getByText(/Connection test failed/).waitFor();
    const said = (await added.locator('.test-outcome').textContent())!;
    assert.match(said, /535\b.*Invalid username or password/, said);
    assert.equal(sink.authenticated.length, 1, 'refused by the relay');
    await chromium.shoot('upstreams-test-failed');
    await added.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('button', { name: 'Edit EU relay (backup)' }).click();
    const form = page.getByRole('form', { name: 'Change EU relay (backup)' });
    assert.equal(await form.getByLabel('Relay URL').inputValue(), `smtp://${RELAY_USER}@127.0.0.1:${sink.port}`, 'the URL without the masked password');
    assert.equal(await form.getByLabel('Password').inputValue(), '');
    await form.getByLabel('Password').fill(RELAY_PASSWORD);
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Add an upstream' }).waitFor();
    await page.getByRole('button', { name: 'Test connection to EU relay (backup)' }).click();
    await outcomeUnder('EU relay (backup)').getByText(/Connection test passed/).waitFor();
    assert.equal(sink.authenticated.length, 2);
  });

  it('keeps the stored password when a change leaves the field blank', async () => {
    await page.getByRole('button', { name: 'Edit EU relay (primary)' }).click();
    const form = page.getByRole('form', { name: 'Change EU relay (primary)' });
    await form.getByLabel('Name', { exact: true }).fill('EU relay (main)');
    await chromium.shoot('upstreams-edit');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await upstreamRow('EU relay (main)').waitFor();
    await page.getByRole('button', { name: 'Test connection to EU relay (main)' }).click();
    await outcomeUnder('EU relay (main)').getByText(/Connection test passed/).waitFor();
    assert.equal(sink.authenticated.length, 3, 'authenticated with the password kept');
  });

  it('adds an SES account against the emulator, its key masked and its secret nowhere', async () => {
    await page.getByLabel('Type').selectOption('ses');
    await page.getByLabel('Name', { exact: true }).fill('SES Ireland');
    await page.getByLabel('Region').fill(TEST_REGION);
    await page.getByLabel('Access key ID').fill(TEST_ACCESS_KEY_ID);
    await page.getByLabel('Secret access key').fill(TEST_SECRET_ACCESS_KEY);
    await page.getByLabel('Endpoint (optional)').fill(ses.url);
    await page.getByRole('button', { name: 'Add upstream' }).click();
    const added = page.getByRole('region', { name: 'Added SES Ireland' });
    await added.getByText(/Connection test passed/).waitFor();
    assert.ok(ses.accountReads > 0, 'GetAccount answered');
    assert.deepEqual(ses.refused, [], 'signed with the stored secret');
    await added.getByRole('button', { name: 'Done' }).click();
    const target = await upstreamRow('SES Ireland').locator('.upstream-target').textContent();
    assert.equal(target, `Region ${TEST_REGION}, key AKIA${'*'.repeat(12)}0001`);
  });

  it("sets a domain's route to two upstreams in order, sends through them, and shows it on both pages and in the API", async () => {
    await page.goto(`${server.base}/domains`);
    const row = page.getByRole('row', { name: new RegExp(DOMAIN) });
    await row.locator('td[data-label="Route"]', { hasText: "The server's upstream" }).waitFor();
    await row.getByRole('button', { name: `Edit route of ${DOMAIN}` }).click();
    const editor = page.getByRole('region', { name: `Route of ${DOMAIN}` });
    for (const name of ['EU relay (main)', 'EU relay (backup)']) {
      await editor.getByLabel('Upstream to add').selectOption({ label: `${name} (SMTP relay)` });
      await editor.getByRole('button', { name: 'Add to route' }).click();
    }
    await editor.getByRole('button', { name: 'Move EU relay (backup) up' }).click();
    await editor.locator('.route-step-name').first().filter({ hasText: 'EU relay (backup)' }).waitFor();
    assert.deepEqual(await editor.locator('.route-step-name').allTextContents(), ['EU relay (backup) SMTP relay', 'EU relay (main) SMTP relay']);
    await chromium.shoot('domains-route-editor');
    await editor.getByRole('button', { name: 'Save route' }).click();
    await editor.waitFor({ state: 'detached' });
    await row.locator('td[data-label="Route"] li').nth(1).waitFor();
    assert.deepEqual(await row.locator('td[data-label="Route"] li').allTextContents(), ['EU relay (backup)', 'EU relay (main)']);
    const route = [await idOf('EU relay (backup)'), await idOf('EU relay (main)')];
    assert.deepEqual((await v1('GET', `/v1/domains/${domainIds[DOMAIN]}`)).body.data.upstream_ids, route);
    await chromium.shoot('domains-routed');

    const from = `Billing <invoices@${DOMAIN}>`;
    for (const to of ['ada@customers.example', REFUSED]) assert.equal((await v1('POST', '/v1/send', { from_email: from, to: [to], subject: 'Your invoice', text: 'Attached.' })).status, 200);
    await waitFor(() => sink.received.length === 1 && sink.rcptSeen.includes(REFUSED), 'both sends at the relay');
    await upstreamsPage();
    const backup = upstreamRow('EU relay (backup)');
    await waitFor(async () => {
      await page.reload();
      return (await backup.locator('td[data-label="Last hour"]').textContent()) === '2 attempts1 accepted, 1 permanent';
    }, 'the last hour of the first upstream on the route');
    assert.equal(await backup.locator('td[data-label="Domains"]').textContent(), DOMAIN);
    assert.equal(await upstreamRow('EU relay (main)').locator('td[data-label="Last hour"]').textContent(), 'No attempts', 'the second was not needed');
    await chromium.shoot('upstreams-routed');
  });

  it('refuses to delete an upstream while a domain routes through it, saying why, and deletes it once none does', async () => {
    const ses = upstreamRow('SES Ireland');
    await ses.getByRole('button', { name: 'Delete SES Ireland' }).click();
    // Routed behind the page's back: the server's 409 is what the page shows.
    await v1('PATCH', `/v1/domains/${domainIds[OTHER_DOMAIN]}`, { upstream_ids: [await idOf('SES Ireland')] });
    await page.getByRole('button', { name: 'Delete SES Ireland', exact: true }).last().click();
    await page.getByRole('alert').filter({ hasText: `is on the route of ${OTHER_DOMAIN}: take it off first` }).waitFor();
    await ses.getByText('On a domain’s route: take it off on the Domains page first.').waitFor();
    const locked = ses.getByRole('button', { name: 'Delete SES Ireland' });
    assert.equal(await locked.isDisabled(), true, 'read again: routed now');
    assert.equal(await page.locator(`[id="${await locked.getAttribute('aria-describedby')}"]`).textContent(), 'On a domain’s route: take it off on the Domains page first.');
    await chromium.shoot('upstreams-delete-refused');

    await page.goto(`${server.base}/domains`);
    await page.getByRole('button', { name: `Edit route of ${OTHER_DOMAIN}` }).click();
    const editor = page.getByRole('region', { name: `Route of ${OTHER_DOMAIN}` });
    await editor.getByRole('button', { name: 'Remove SES Ireland from the route' }).click();
    await editor.getByText("No upstreams: the server's upstream sends this domain's mail.").waitFor();
    await editor.getByRole('button', { name: 'Save route' }).click();
    await page.getByRole('row', { name: new RegExp(OTHER_DOMAIN) }).locator('td[data-label="Route"]', { hasText: "The server's upstream" }).waitFor();

    await upstreamsPage();
    await ses.getByRole('button', { name: 'Delete SES Ireland' }).click();
    await ses.getByRole('button', { name: 'Delete SES Ireland', exact: true }).last().click();
    await ses.waitFor({ state: 'detached' });
    assert.deepEqual(((await v1('GET', '/v1/upstreams')).body.data as { name: string }[]).map((u) => u.name), ['EU relay (main)', 'EU relay (backup)']);
  });

  it('shows a viewer the upstreams and routes, with nothing to add, test, change or delete', async () => {
    const vic = await chromium.newPage();
    await signInOnPage(vic, server.base, VIEWER, PASSWORD);
    await upstreamsPage(vic);
    await vic.getByText('You are a viewer in this workspace: admins and developers add, test, change and delete upstreams.').waitFor();
    await upstreamRow('EU relay (backup)', vic).waitFor();
    assert.deepEqual(await vic.locator('main').getByRole('button').allTextContents(), []);
    await chromium.shoot('upstreams-viewer', vic);
    await vic.goto(`${server.base}/domains`);
    await vic.getByRole('row', { name: new RegExp(DOMAIN) }).locator('td[data-label="Route"] li').first().waitFor();
    assert.equal(await vic.getByRole('button', { name: /^Edit route/ }).count(), 0);
    await vic.context().close();
  });

  it('never let a password or secret key reach the page or an answer of the dashboard API, passed axe-core and logged no error', async () => {
    const bodies = await Promise.all(answers);
    assert.ok(bodies.some((b) => b.includes('"upstreams"') || b.includes('ups_')), 'the answers were read');
    for (const secret of [RELAY_PASSWORD, WRONG_PASSWORD, TEST_SECRET_ACCESS_KEY, TEST_ACCESS_KEY_ID]) {
      assert.deepEqual(bodies.filter((b) => b.includes(secret)), [], secret);
      assert.equal((await page.content()).includes(secret), false, secret);
    }
    assert.deepEqual(chromium.inaccessible, []);
    assert.deepEqual(unexpectedProblems(chromium.problems, [401, 409]), []);
  });
});
