/**
 * The Domains page in Chromium against real `mailroom serve` processes: with
 * MAILROOM_HOSTNAME no name public DNS can use, the page itself warns, naming
 * the variable and what to set it to (the rule and sentence of the start-up
 * log's warning), above records that name that host; with a fully qualified
 * one it says nothing. With no domain yet, it says what can send meanwhile:
 * `sandbox.mailroom.test` under the sandbox provider, nothing under SMTP.
 * Screenshots at 1440 and 390 pixels wide go to MAILROOM_SCREENSHOTS when it is set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { createMember, createWorkspace, signInOnPage } from './helpers/dashboard-rig.js';
import { startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';

const PASSWORD = 'a long enough password';
const ADMIN = 'postmaster.team@analytical-engines.example';
const DOMAIN = 'transactional.eu-west-1.notifications.analytical-engines.example';
const WARNING =
  'Warning: MAILROOM_HOSTNAME is "vm", not a fully qualified domain name: the DNS records Mailroom suggests (return-path MX, SPF) will be wrong; set MAILROOM_HOSTNAME to this machine\'s public name, e.g. mail.example.com.';

describe('the Domains page in Chromium', () => {
  showServeOutputOfFailedTests();
  const stores: FreshStore[] = [];
  const servers: ServeProcess[] = [];
  let chromium: TestBrowser;

  /** A serve of its own with `env`, a workspace and its admin, and a page signed in on its Domains page. */
  async function domainsPage(env: Record<string, string>) {
    const store = await freshStore();
    stores.push(store);
    const server = await startServe({ ...store.env, ...env });
    servers.push(server);
    createMember(store.env, createWorkspace(store.env, 'Analytical Engines Ltd').workspaceId, ADMIN, 'admin', PASSWORD);
    const page = await chromium.newPage();
    await signInOnPage(page, server.base, ADMIN, PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Domains' }).click();
    await page.getByRole('heading', { name: 'Domains of this workspace' }).waitFor();
    return page;
  }

  before(async () => {
    chromium = await launchBrowser();
  });
  after(async () => {
    await chromium?.close();
    for (const server of servers) await server.stop();
    for (const store of stores) await store.drop();
  });

  it('warns on the page while MAILROOM_HOSTNAME is not fully qualified, and says the sandbox domain sends while there is no domain', async () => {
    const page = await domainsPage({ MAILROOM_HOSTNAME: 'vm' });
    const warning = page.getByRole('region', { name: 'Set MAILROOM_HOSTNAME before publishing DNS records' });
    await warning.waitFor();
    assert.equal(await warning.locator('.rate-warning').textContent(), WARNING);
    await page.getByText(/^No domains yet\. Mail can already be sent from sandbox\.mailroom\.test without one: the sandbox provider keeps it/).waitFor();
    await chromium.shoot('domains-hostname-empty', page);

    await page.getByRole('textbox', { name: 'Domain' }).fill(DOMAIN);
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { name: `DNS records of ${DOMAIN}` }).waitFor();
    const records = page.locator('section[aria-labelledby="records-title"] code.record-value');
    const values = await records.allTextContents();
    assert.ok(values.includes('10 vm') && values.includes('v=spf1 a:vm ~all'), `the records the warning is about: ${values.join(' | ')}`);
    assert.equal(await warning.isVisible(), true, 'still warned beside them');
    await page.getByText('No domains yet.').waitFor({ state: 'detached' });
    await chromium.shoot('domains-hostname-records', page);
  });

  it('says nothing of the host with a fully qualified MAILROOM_HOSTNAME, and without the sandbox no domain sends before one is verified', async () => {
    const page = await domainsPage({ MAILROOM_HOSTNAME: 'mail.analytical-engines.example', MAILROOM_PROVIDER: 'smtp', SMTP_URL: 'smtp://127.0.0.1:9' });
    await page.getByText('No domains yet. Mail can be sent from a domain once it is added and verified.', { exact: true }).waitFor();
    assert.equal(await page.getByText(/MAILROOM_HOSTNAME/).count(), 0);
    assert.equal(await page.getByText('sandbox.mailroom.test').count(), 0);
  });

  it('passed axe-core and logged no error', () => {
    assert.deepEqual(chromium.inaccessible, []);
    assert.deepEqual(unexpectedProblems(chromium.problems, [401]), []);
  });
});
