/**
 * The Upstreams page and the Domains page's routes in Chromium at 1440 and 390
 * pixels wide, with data as long as a real workspace's gets: six upstreams
 * with long names and relay hosts (SMTP relays and SES accounts with a
 * configuration set and endpoint), one down after a relay's long refusal, one
 * degraded, an hour of attempts through them, and domains routed through up
 * to three of them. Nothing scrolls sideways, reaches past its card or out of
 * its cell (helpers/layout-check.ts measures it). Screenshots of each at both
 * widths go to MAILROOM_SCREENSHOTS when it is set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import type { AttemptOutcome } from '../src/db/schema.js';
import { openDatabase } from '../src/db/database.js';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { createMember, createWorkspace, signInOnPage, v1Caller } from './helpers/dashboard-rig.js';
import { layoutProblemsAtBothWidths } from './helpers/layout-check.js';
import { startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';

const PASSWORD = 'a long enough password';
const ADMIN = 'postmaster.team@analytical-engines.example';
const SES_KEY = { access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const UPSTREAMS = [
  { name: 'Mailgun EU backup relay for transactional receipts (Frankfurt)', type: 'smtp', url: 'smtp://postmaster@mg.analytical-engines.example:relay-pass@smtp-relay.eu-central-1.mailgun-backup.example.com:587', starttls: 'required' },
  { name: 'Amazon SES Ireland, production account with dedicated IP pool', type: 'ses', region: 'eu-west-1', ...SES_KEY, configuration_set: 'transactional-receipts-eu-west-1-dedicated', endpoint: 'https://email.eu-west-1.amazonaws.com' },
  { name: 'Postmark outbound stream: password resets and sign-in links', type: 'smtp', url: 'smtps://pm-outbound-stream-7f3a9c21:token@smtp.postmarkapp-outbound-streams.example.net:465' },
  { name: 'On-premises Postfix in the Zurich data centre (fallback of last resort)', type: 'smtp', url: 'smtp://zrh-dc1-postfix-outbound-relay-cluster.internal-mail.analytical-engines.example:2525', starttls: 'never' },
  { name: 'Amazon SES North Virginia, marketing account', type: 'ses', region: 'us-east-1', ...SES_KEY, configuration_set: null, endpoint: null },
  { name: 'SendGrid relay, EU data residency', type: 'smtp', url: 'smtp://apikey:SG.secret@smtp.eu.sendgrid-residency-relay.example.com:587' },
] as const;
const DOMAINS = [
  'transactional-receipts.eu-west-1.notifications.analytical-engines.example',
  'password-resets.accounts.analytical-engines.example',
  'billing.analytical-engines.example',
  'marketing-newsletters.us-east-1.analytical-engines.example',
];
/** Which upstreams (by place in UPSTREAMS) each domain routes through, in order; the last domain keeps the server's. */
const ROUTES = [[0, 1, 3], [2, 0], [5, 1, 3]];
const DOWN_ERROR =
  '421 4.7.0 smtp-relay.eu-central-1.mailgun-backup.example.com Service not available, closing transmission channel: too many concurrent connections from 203.0.113.42 (rate limited for this sending IP), try again in 300 seconds';
const DEGRADED_ERROR = 'Connection timeout after 10000 ms connecting to smtp.postmarkapp-outbound-streams.example.net:465 (ETIMEDOUT)';
/** An hour of attempts per upstream, by outcome. */
const HOUR: Partial<Record<AttemptOutcome, number>>[] = [{ accepted: 212, temporary: 9, permanent: 4 }, { accepted: 1843, permanent: 17, failed: 1 }, { accepted: 96, temporary: 31 }];

describe('the Upstreams and Domains pages at 1440 and 390 pixels wide, with long data', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  let chromium: TestBrowser;
  let workspaceId = '';
  const ids: string[] = [];

  /** The page's layout problems at both widths, then its screenshots (and axe-core's audit). */
  async function check(name: string) {
    const problems = await layoutProblemsAtBothWidths(chromium.page, name);
    await chromium.shoot(name);
    assert.deepEqual(problems, []);
  }

  before(async () => {
    store = await freshStore();
    // Private hosts allowed: the relays' example hosts are not looked up at all.
    server = await startServe({ ...store.env, UPSTREAM_ALLOW_PRIVATE: 'true' });
    const created = createWorkspace(store.env, 'Analytical Engines Ltd');
    workspaceId = created.workspaceId;
    createMember(store.env, workspaceId, ADMIN, 'admin', PASSWORD);
    const v1 = v1Caller(server.base, created.apiKey);
    for (const body of UPSTREAMS) {
      const res = await v1('POST', '/v1/upstreams', body);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids.push(res.body.data.id);
    }
    for (const [i, domain] of DOMAINS.entries()) {
      const { id } = (await v1('POST', '/v1/domains', { domain })).body.data;
      if (ROUTES[i]) assert.equal((await v1('PATCH', `/v1/domains/${id}`, { upstream_ids: ROUTES[i]!.map((n) => ids[n]) })).status, 200);
    }
    await writeHealthAndAttempts();
    chromium = await launchBrowser();
    await signInOnPage(chromium.page, server.base, ADMIN, PASSWORD);
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await store?.drop();
  });

  /** What the delivery worker would have written after an hour of mail: the breaker's rows, and the attempts. */
  async function writeHealthAndAttempts() {
    const db = openDatabase(loadConfig(store.env));
    try {
      const now = Date.now();
      const iso = (ms: number) => new Date(now + ms).toISOString();
      await db
        .insertInto('upstream_health')
        .values([
          { key: ids[0]!, failures: 5, window_started_at: iso(-40_000), down_until: iso(600_000), probe_until: null, last_error: DOWN_ERROR, last_error_at: iso(-5_000), changed_at: iso(-5_000) },
          { key: ids[2]!, failures: 2, window_started_at: iso(-20_000), down_until: null, probe_until: null, last_error: DEGRADED_ERROR, last_error_at: iso(-3_000), changed_at: iso(-20_000) },
          { key: ids[5]!, failures: 0, window_started_at: null, down_until: null, probe_until: null, last_error: '454 4.7.0 Temporary authentication failure', last_error_at: iso(-2_400_000), changed_at: iso(-2_400_000) },
        ])
        .execute();
      const rows = HOUR.flatMap((counts, n) =>
        Object.entries(counts).flatMap(([outcome, count]) =>
          Array.from({ length: count }, (_, i) => ({
            id: `att_layout_${n}_${outcome}_${i}`, workspace_id: workspaceId, message_id: `msg_layout_${n}_${i}`, recipient: `customer${i}@example.com`, attempt: 1,
            provider: n === 1 ? 'ses' : 'smtp', outcome: outcome as AttemptOutcome, detail: '250 2.0.0 OK', duration_ms: 180, provider_message_id: null, upstream: ids[n]!, created_at: iso(-(i % 3_000) * 1_000),
          })),
        ),
      );
      for (let i = 0; i < rows.length; i += 200) await db.insertInto('delivery_attempts').values(rows.slice(i, i + 200)).execute();
    } finally {
      await db.destroy();
    }
  }

  it('lays out the Upstreams page, one down with its long error, one degraded, counts of the last hour and routed domains', async () => {
    const page = chromium.page;
    await page.goto(`${server.base}/upstreams`);
    const rows = page.locator('table.upstreams tbody tr');
    await rows.nth(UPSTREAMS.length - 1).waitFor();
    assert.deepEqual(await page.locator('td[data-label="Health"] .badge').allTextContents(), ['Down', 'Healthy', 'Degraded', 'Healthy', 'Healthy', 'Healthy']);
    assert.match((await rows.first().locator('td[data-label="Health"]').textContent())!, /too many concurrent connections from 203\.0\.113\.42/);
    // In the browser's locale's digits grouping (1,861 in English).
    assert.match((await rows.nth(1).locator('td[data-label="Last hour"]').textContent())!, /^1\D?861 attempts1\D?843 accepted, 17 permanent, 1 failed$/);
    assert.deepEqual(await rows.first().locator('td[data-label="Domains"] li').allTextContents(), [DOMAINS[1], DOMAINS[0]], 'by name');
    await check('upstreams-long');
  });

  it('lays out the Upstreams page with an SES account being changed', async () => {
    const page = chromium.page;
    await page.getByRole('button', { name: `Edit ${UPSTREAMS[1].name}` }).click();
    await page.getByRole('form', { name: `Change ${UPSTREAMS[1].name}` }).waitFor();
    await check('upstreams-long-edit');
  });

  it("lays out the Domains page with each domain's route, and the route editor open on a three-upstream route", async () => {
    const page = chromium.page;
    await page.goto(`${server.base}/domains`);
    await page.locator('td[data-label="Route"] li').first().waitFor();
    const routed = page.getByRole('row', { name: new RegExp(DOMAINS[0]!.replace(/\./g, '\\.')) });
    await routed.locator('td[data-label="Route"] li', { hasText: '(down)' }).waitFor();
    assert.deepEqual(await routed.locator('td[data-label="Route"] li').allTextContents(), [`${UPSTREAMS[0].name} (down)`, UPSTREAMS[1].name, UPSTREAMS[3].name]);
    await page.getByRole('button', { name: `Edit route of ${DOMAINS[0]}` }).click();
    const editor = page.getByRole('region', { name: `Route of ${DOMAINS[0]}` });
    assert.equal(await editor.locator('.route-step-name').count(), 3);
    await check('domains-long-routes');
  });

  it('passed axe-core and logged no error', () => {
    assert.deepEqual(chromium.inaccessible, []);
    assert.deepEqual(unexpectedProblems(chromium.problems, [401]), []);
  });
});
