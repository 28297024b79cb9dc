/**
 * A domain's tracking on the Domains page in Chromium, against a real `mailroom serve` and a real DNS
 * server on loopback: an admin turns the switches on, is told next to the field why a host outside the
 * domain is refused, sets a tracking domain whose CNAME then appears among the DNS records, publishes it
 * and verifies it into `verified` while the domain stays `pending`; each row says its tracking. A viewer
 * sees the same switches, disabled, and no way to save. Long real-looking names throughout; nothing
 * overflows at 1440 or 390 pixels (helpers/layout-check.ts); screenshots go to MAILROOM_SCREENSHOTS.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { createMember, createWorkspace, signInOnPage, v1Caller } from './helpers/dashboard-rig.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { layoutProblemsAtBothWidths } from './helpers/layout-check.js';
import { startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';

const PASSWORD = 'a long enough password';
const ADMIN = 'postmaster.team@analytical-engines.example';
const VIEWER = 'quarterly-reporting.auditor@analytical-engines.example';
const MAIL_HOST = 'outbound-mail-relay.eu-west-1.analytical-engines.example';
const DOMAIN = 'transactional-receipts.eu-west-1.notifications.analytical-engines.example';
const TRACKING = `click-and-open-tracking.${DOMAIN}`;
/** Other domains of the workspace, each with tracking of its own: clicks through a host whose CNAME names another provider's. */
const OTHER = 'password-resets.accounts.analytical-engines.example';
const OTHER_TRACKING = `links.${OTHER}`;

describe("a domain's tracking on the Domains page in Chromium", () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  let dns: TestDnsServer;
  let chromium: TestBrowser;
  let workspaceId = '';

  async function check(name: string, page = chromium.page) {
    const problems = await layoutProblemsAtBothWidths(page, name);
    await chromium.shoot(name, page);
    assert.deepEqual(problems, []);
  }

  before(async () => {
    store = await freshStore();
    dns = await startDnsServer();
    server = await startServe({ ...store.env, DNS_SERVERS: dns.address, MAILROOM_HOSTNAME: MAIL_HOST });
    const created = createWorkspace(store.env, 'Analytical Engines Ltd');
    workspaceId = created.workspaceId;
    createMember(store.env, workspaceId, ADMIN, 'admin', PASSWORD);
    createMember(store.env, workspaceId, VIEWER, 'viewer', PASSWORD);
    const v1 = v1Caller(server.base, created.apiKey);
    const other = (await v1('POST', '/v1/domains', { domain: OTHER })).body.data;
    assert.equal((await v1('PATCH', `/v1/domains/${other.id}`, { click_tracking: true, tracking_domain: OTHER_TRACKING })).status, 200);
    dns.setCname(OTHER_TRACKING, 'tracking.another-email-provider.example.net');
    assert.equal((await v1('POST', `/v1/domains/${other.id}/verify`)).body.data.tracking_domain_status, 'failed');
    await v1('POST', '/v1/domains', { domain: 'billing.analytical-engines.example' });
    await v1('POST', '/v1/domains', { domain: DOMAIN });
    chromium = await launchBrowser();
    await signInOnPage(chromium.page, server.base, ADMIN, PASSWORD);
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await dns?.close();
    await store?.drop();
  });

  const rowOf = (domain: string, page = chromium.page) => page.getByRole('row', { name: new RegExp(`^${domain.replace(/\./g, '\\.')} `) });

  it('turns the switches on, refuses a host outside the domain next to its field, and lists the CNAME of the one it takes', async () => {
    const page = chromium.page;
    await page.goto(`${server.base}/domains`);
    await rowOf(DOMAIN).waitFor();
    assert.equal(await rowOf(DOMAIN).locator('td[data-label="Tracking"]').textContent(), 'Off');
    assert.equal(await rowOf(OTHER).locator('td[data-label="Tracking"]').textContent(), `Clicks${OTHER_TRACKING} failed`);

    await page.getByRole('button', { name: `DNS records of ${DOMAIN}` }).click();
    const card = page.getByRole('form', { name: `Tracking of ${DOMAIN}` });
    await card.waitFor();
    assert.deepEqual([await card.getByRole('switch', { name: /^Track opens/ }).isChecked(), await card.getByRole('switch', { name: /^Track clicks/ }).isChecked()], [false, false]);
    await card.getByRole('switch', { name: /^Track opens/ }).check();
    await card.getByRole('switch', { name: /^Track clicks/ }).check();
    const host = card.getByRole('textbox', { name: 'Tracking domain' });
    await host.fill('links.analytical-engines.example');
    await card.getByRole('button', { name: 'Save tracking' }).click();
    await card.getByText(`Must be a subdomain of ${DOMAIN} such as links.${DOMAIN} (got "links.analytical-engines.example")`).waitFor();
    assert.equal(await rowOf(DOMAIN).locator('td[data-label="Tracking"]').textContent(), 'Off', 'nothing saved');

    await host.fill(TRACKING.toUpperCase());
    await card.getByRole('button', { name: 'Save tracking' }).click();
    await card.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    assert.equal(await host.inputValue(), TRACKING, 'as the server keeps it');
    const records = page.locator('section[aria-labelledby="records-title"] tbody tr');
    const cname = records.last();
    assert.deepEqual(await cname.locator('td').allTextContents(), ['CNAME', TRACKING, `${MAIL_HOST}Copy`, 'Tracked links and the open pixel (its own status) pending']);
    await card.getByText('Publish its CNAME record (in the DNS records), then Verify.').waitFor();
    await rowOf(DOMAIN).locator('td[data-label="Tracking"]', { hasText: `Opens, Clicks${TRACKING} pending` }).waitFor();
    await check('domain-tracking-set');
  });

  it('verifies the published CNAME into verified while the domain stays pending', async () => {
    const page = chromium.page;
    dns.setCname(TRACKING, MAIL_HOST);
    await page.locator('section[aria-labelledby="records-title"]').getByRole('button', { name: 'Verify' }).click();
    const card = page.getByRole('form', { name: `Tracking of ${DOMAIN}` });
    await card.getByText('Its CNAME names this server.').waitFor();
    const records = page.locator('section[aria-labelledby="records-title"]');
    assert.equal(await records.locator('p .badge').first().textContent(), 'pending', "the domain's own status");
    assert.equal(await records.locator('tbody tr').last().locator('td[data-label="Found"]').textContent(), 'Matches');
    await rowOf(DOMAIN).locator('td[data-label="Tracking"]', { hasText: `${TRACKING} verified` }).waitFor();
    assert.equal(await rowOf(DOMAIN).locator('td[data-label="Status"]').textContent(), 'pending');
    await check('domain-tracking-verified');
  });

  it('shows a viewer the switches disabled and the tracking domain as text, with no way to save', async () => {
    const page = await chromium.newPage();
    await signInOnPage(page, server.base, VIEWER, PASSWORD);
    await page.goto(`${server.base}/domains`);
    await rowOf(DOMAIN, page).waitFor();
    await page.getByRole('button', { name: `DNS records of ${DOMAIN}` }).click();
    const card = page.getByRole('form', { name: `Tracking of ${DOMAIN}` });
    await card.waitFor();
    for (const name of [/^Track opens/, /^Track clicks/]) {
      const toggle = card.getByRole('switch', { name });
      assert.deepEqual([await toggle.isChecked(), await toggle.isDisabled()], [true, true]);
    }
    assert.equal(await card.getByRole('textbox').count(), 0);
    assert.equal(await card.getByRole('button').count(), 0);
    assert.equal(await card.locator('code').textContent(), TRACKING);
    await check('domain-tracking-viewer', page);
  });

  it('passed axe-core and logged no error but the refusal it provoked', () => {
    assert.deepEqual(chromium.inaccessible, []);
    assert.deepEqual(unexpectedProblems(chromium.problems, [400, 401]), []);
  });
});
