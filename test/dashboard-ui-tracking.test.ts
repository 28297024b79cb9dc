/**
 * Opens and clicks in Chromium against a real `mailroom serve` (sandbox
 * provider): a tracked message's timeline with the opens and clicks tracking
 * records (Apple's prefetch, a link scanner's pre-click, a Gmail reader
 * through its image proxy, a person's click on a long link), each with its
 * machine or proxy badge, client and network; and the Overview's open and
 * click rates of tracked mail, machines beside them, or the line saying that
 * nothing was tracked. The rows are written as the tracking recorder writes
 * them (message_events with the webhook payload, engagement_hourly), since
 * what is shown is under test here, not what counts as a machine. Layout at
 * 1440 and 390 pixels wide, axe-core, and screenshots into MAILROOM_SCREENSHOTS.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import type { EngagementHourlyTable } from '../src/db/schema.js';
import { eventAbout, eventPayload, type EngagementDetail } from '../src/events/index.js';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { createMember, createWorkspace, signInOnPage, v1Caller } from './helpers/dashboard-rig.js';
import { layoutProblemsAtBothWidths } from './helpers/layout-check.js';
import { showServeOutputOfFailedTests, startServe, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const PASSWORD = 'a long enough password';
const HOUR_MS = 3_600_000;
const FROM = 'Analytical Engines Orders <orders@sandbox.mailroom.test>';
const READER = 'ada.lovelace.countess-of-lovelace.notes-on-the-engine@difference-engine.correspondence.example';
const OTHER = 'charles.babbage@difference-engine.correspondence.example';
const ORDER_URL =
  'https://shop.analytical-engines.example/account/orders/2026-12-01/ORD-88412-XK/track-your-delivery?utm_source=mailroom&utm_medium=email&utm_campaign=order-shipped-notification-december&utm_content=primary-button&ref=c3VwZXItbG9uZy10b2tlbi12YWx1ZS10aGF0LWdvZXMtb24tYW5kLW9u';
const HELP_URL = 'https://help.analytical-engines.example/articles/where-is-my-parcel';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1';
const SAFE_LINKS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91';
const GMAIL = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';

/** Opens and clicks of READER, seconds after the hand-over, as the recorder classifies them (docs/tracking.md's rules). */
const ENGAGEMENT: { type: 'opened' | 'clicked'; after: number; detail: EngagementDetail }[] = [
  { type: 'opened', after: 1, detail: { user_agent: 'Mozilla/5.0', ip: '17.58.101.0', machine: true, proxy: true, machine_rule: 'apple-mpp' } },
  { type: 'clicked', after: 2, detail: { url: ORDER_URL, user_agent: SAFE_LINKS, ip: '40.94.31.0', machine: true, machine_rule: 'soon-after-delivery' } },
  { type: 'opened', after: 40, detail: { user_agent: GMAIL, ip: '66.249.84.0', machine: false, proxy: true, machine_rule: 'google-image-proxy' } },
  { type: 'clicked', after: 75, detail: { url: ORDER_URL, user_agent: IPHONE, ip: '2a02:810d:4b3f::', machine: false, machine_rule: null } },
  { type: 'clicked', after: 90, detail: { url: HELP_URL, user_agent: null, ip: '198.51.100.0', machine: true, machine_rule: 'no-user-agent' } },
];

type Counts = Omit<EngagementHourlyTable, 'workspace_id' | 'hour'>;
/** The workspace's hours before this one; the send adds its two tracked recipients in this hour. */
const EARLIER: { hoursAgo: number; counts: Counts }[] = [
  { hoursAgo: 2, counts: { opened: 90, unique_opened: 80, clicked: 41, unique_clicked: 30, machine_opened: 20, machine_clicked: 5, tracked_opens: 200, tracked_clicks: 180 } },
  { hoursAgo: 7, counts: { opened: 50, unique_opened: 40, clicked: 20, unique_clicked: 18, machine_opened: 15, machine_clicked: 4, tracked_opens: 84, tracked_clicks: 68 } },
  // Outside the 24 hours, inside the 7 days.
  { hoursAgo: 50, counts: { opened: 30, unique_opened: 30, clicked: 12, unique_clicked: 12, machine_opened: 5, machine_clicked: 1, tracked_opens: 114, tracked_clicks: 100 } },
];

describe('opens and clicks in Chromium: the timeline and the Overview', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  let chromium: TestBrowser;
  let page: Page;
  let messageId = '';

  /** The page's layout problems at both widths, then its screenshots (and axe-core's audit). */
  async function check(name: string, on = page) {
    const problems = await layoutProblemsAtBothWidths(on, name);
    await chromium.shoot(name, on);
    assert.deepEqual(problems, []);
  }

  before(async () => {
    store = await freshStore();
    server = await startServe({ ...store.env, WORKER_POLL_MS: '20' });
    const tracked = createWorkspace(store.env, 'Analytical Engines Ltd');
    const quiet = createWorkspace(store.env, 'Quiet Workspace');
    createMember(store.env, tracked.workspaceId, 'ada@example.com', 'admin', PASSWORD);
    createMember(store.env, quiet.workspaceId, 'cyd@example.com', 'viewer', PASSWORD);

    const v1 = v1Caller(server.base, tracked.apiKey);
    const html = `<p>Your order ORD-88412-XK <a href="${ORDER_URL.replace(/&/g, '&amp;')}">is on its way</a>.</p><p><a href="${HELP_URL}">Where is my parcel?</a></p>`;
    const sent = await v1('POST', '/v1/send', { from_email: FROM, to: [READER, OTHER], subject: 'Your order ORD-88412-XK has shipped', html, track_opens: true, track_clicks: true });
    assert.equal(sent.body.data.status, 'sent', JSON.stringify(sent.body));
    messageId = sent.body.data.message_id;
    const untracked = await v1Caller(server.base, quiet.apiKey)('POST', '/v1/send', { from_email: FROM, to: [OTHER], subject: 'Untracked', html: '<p>Hello</p>' });
    assert.equal(untracked.body.data.status, 'sent');

    const handedOver = await waitFor(async () => {
      const { recipients } = (await v1('GET', `/v1/messages/${messageId}`)).body.data as { recipients: { to: string; status: string; attempts: { at: string }[] }[] };
      return recipients.every((r) => r.status === 'delivered') ? recipients.find((r) => r.to === READER)!.attempts[0]!.at : null;
    }, 'both recipients delivered');
    await writeEngagement(tracked.workspaceId, handedOver);
    // The send's own two tracked recipients, counted at its hand-over, come on top of the hours written.
    const totals = await waitFor(async () => {
      const data = (await v1('GET', '/v1/send/stats/engagement')).body.data as Counts;
      return data.tracked_opens === 400 ? data : null;
    }, 'the tracked hand-over counted');
    assert.equal(totals.tracked_clicks, 350);

    chromium = await launchBrowser();
    page = chromium.page;
    await signInOnPage(page, server.base, 'ada@example.com', PASSWORD);
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await store?.drop();
  });

  async function writeEngagement(workspaceId: string, handedOver: string) {
    const db = openDatabase(loadConfig(store.env));
    try {
      const entry = { workspace_id: workspaceId, message_id: messageId, recipient: READER, from_email: 'orders@sandbox.mailroom.test', subject: 'Your order ORD-88412-XK has shipped', tags: null };
      const events = ENGAGEMENT.map(({ type, after: seconds, detail }) => ({ ...eventAbout(entry, type, new Date(Date.parse(handedOver) + seconds * 1000).toISOString()), engagement: detail }));
      await db
        .insertInto('message_events')
        .values(events.map((e) => ({ id: e.id, workspace_id: workspaceId, message_id: messageId, type: e.type, recipient: READER, payload: JSON.stringify(eventPayload(e)), created_at: e.timestamp })))
        .execute();
      const thisHour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
      await db
        .insertInto('engagement_hourly')
        .values(EARLIER.map(({ hoursAgo, counts }) => ({ workspace_id: workspaceId, hour: new Date(thisHour - hoursAgo * HOUR_MS).toISOString(), ...counts })))
        .execute();
    } finally {
      await db.destroy();
    }
  }

  const event = (i: number) => page.getByRole('list', { name: `Timeline of ${READER}` }).locator('li.timeline-event').nth(i);

  it('shows each open and click with its machine or proxy badge, the link, the client and the network', async () => {
    await page.goto(`${server.base}/messages/${messageId}`);
    const timeline = page.getByRole('list', { name: `Timeline of ${READER}` });
    await timeline.getByText('Clicked by a machine, not a person', { exact: false }).first().waitFor();
    assert.equal(await timeline.locator('li.timeline-event').count(), 5 + 1, 'five opens and clicks after the delivery event');

    const shown = [];
    for (let i = 1; i <= 5; i++) shown.push((await event(i).locator('.badge').allTextContents()).join(' | '));
    assert.deepEqual(shown, ['opened | machine · apple-mpp', 'clicked | machine · soon-after-delivery', 'opened | proxy · google-image-proxy', 'clicked', 'clicked | machine · no-user-agent']);
    assert.match((await event(1).innerText())!, /Opened by a machine, not a person: Apple Mail Privacy Protection fetches images as mail arrives, read or not/);
    assert.match((await event(1).innerText())!, /Mozilla\/5\.0 · network 17\.58\.101\.0\/24/);
    assert.match((await event(3).innerText())!, /Opened by a person, through Gmail’s image proxy, fetching for its reader/);
    assert.match((await event(3).innerText())!, /Gmail’s image proxy · network 66\.249\.84\.0\/24/);
    assert.match((await event(2).innerText())!, /Edge 120 on Windows · network 40\.94\.31\.0\/24/);
    assert.match((await event(5).innerText())!, /no user agent · network 198\.51\.100\.0\/24/);

    const person = event(4);
    assert.match(await person.innerText(), /Clicked by a person/);
    const link = person.getByRole('link', { name: ORDER_URL });
    assert.deepEqual([await link.getAttribute('href'), await link.getAttribute('target'), await link.getAttribute('rel')], [ORDER_URL, '_blank', 'noopener noreferrer']);
    // Three lines at most, the rest cut off behind an ellipsis.
    const lines = await link.evaluate((a) => Math.round(a.parentElement!.getBoundingClientRect().height / parseFloat(getComputedStyle(a.parentElement!).lineHeight)));
    assert.ok(lines <= 3, `the URL takes ${lines} lines`);
    const summary = person.locator('summary');
    assert.equal(await summary.textContent(), 'Safari 17.1 on iOS 17.1 · network 2a02:810d:4b3f::/48');
    await summary.click();
    await person.getByText(IPHONE, { exact: true }).waitFor();

    // The other recipient, untouched, shows its delivery alone.
    assert.equal(await page.getByRole('list', { name: `Timeline of ${OTHER}` }).locator('li.timeline-event .badge').allTextContents().then((b) => b.join()), 'delivered');
    await check('message-tracking');
  });

  const rateCard = (on: Page, title: string) => on.getByRole('region', { name: title, exact: true });

  it('shows the open and click rates of tracked mail on the Overview, machines apart, for the period chosen', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    const open = rateCard(page, 'Open rate');
    await open.locator('.rate-value').waitFor();
    // The 24 hours: 120 unique opens of 286 tracked recipients (two of them the send's), 48 clicks of 250.
    assert.equal(await open.locator('.rate-value').textContent(), '42.0%');
    assert.match(await open.innerText(), /120 of 286 tracked recipients opened\n+\+ 35 machine opens not counted/);
    const click = rateCard(page, 'Click rate');
    assert.equal(await click.locator('.rate-value').textContent(), '19.2%');
    assert.match(await click.innerText(), /48 of 250 tracked recipients clicked\n+\+ 9 machine clicks not counted/);
    await page.locator('.chart-plot canvas').waitFor();
    await check('overview-tracking');

    await page.getByRole('button', { name: '7 days' }).click();
    await waitFor(async () => (await open.locator('.rate-value').textContent()) === '37.5%', 'the week: 150 of 400');
    assert.match(await click.innerText(), /60 of 350 tracked recipients clicked\n+\+ 10 machine clicks not counted/);
  });

  it('says that nothing was tracked, linking to the Domains page, instead of a rate of 0 %', async () => {
    const other = await chromium.newPage();
    await signInOnPage(other, server.base, 'cyd@example.com', PASSWORD);
    const section = other.getByRole('region', { name: 'Open and click rates' });
    const line = section.getByText('No tracked mail in this period — turn on tracking per domain');
    await line.waitFor();
    assert.equal(await section.getByText('%').count(), 0);
    assert.equal(await section.getByRole('link', { name: 'turn on tracking per domain' }).getAttribute('href'), '/domains');
    await other.locator('.chart-plot canvas').waitFor();
    await check('overview-untracked', other);
    await section.getByRole('link', { name: 'turn on tracking per domain' }).click();
    await other.getByRole('heading', { name: 'Domains', exact: true }).waitFor();
  });

  it('stays accessible and quiet', () => {
    assert.deepEqual(chromium.inaccessible, []);
    // 401: each page asks who is signed in before its sign-in.
    assert.deepEqual(unexpectedProblems(chromium.problems, [401]), []);
  });
});
