/**
 * The message page's attachments and a complained recipient's status in
 * Chromium, against a real `mailroom serve` with the sandbox provider: each
 * attachment listed with its type, size and whether it is inline, and each
 * download the bytes that were sent, under the name sent (an HTML attachment
 * too, saved, never run); once the retention pruner drops the content, the
 * list says the files are gone. A recipient who complained after delivery is
 * shown as complained, as the Logs show the complaint. Screenshots at 1440
 * and 390 pixels wide go to MAILROOM_SCREENSHOTS when it is set.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { Page } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { createStore } from '../src/composition/store.js';
import { openDatabase } from '../src/db/database.js';
import { createRetentionPruner } from '../src/retention/index.js';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { createMember, createWorkspace, signInOnPage, v1Caller } from './helpers/dashboard-rig.js';
import { startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const PASSWORD = 'a long enough password';
const DAY_MS = 86_400_000;
const REPORT = { filename: 'Quarterly report 2026-Q3, Acme Industries – final (reviewed by legal) v12.pdf', bytes: randomBytes(182_345), type: 'application/pdf' };
const LOGO = { filename: 'acme-logo.png', bytes: randomBytes(4_811), type: 'image/png', cid: 'logo-2026@acme-industries.example' };
const PAGE = { filename: 'booking-confirmation.html', bytes: Buffer.from("<html><body><script>alert('ran in the dashboard')</script><p>Booked</p></body></html>"), type: 'text/html; charset=utf-8' };
const FILES = [REPORT, LOGO, PAGE];
const COMPLAINER = 'complaint@simulator.mailroom.test';
const LONG_RECIPIENT = 'accounts.payable.department.of.acme.industries.international.ltd@simulator.mailroom.test';

describe('attachments and complaints on the message page in Chromium', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  let chromium: TestBrowser;
  let page: Page;
  let v1: ReturnType<typeof v1Caller>;
  const dialogs: string[] = [];

  const send = async (subject: string, to: string[]) => {
    const attachments = [
      { filename: REPORT.filename, content: REPORT.bytes.toString('base64') },
      { filename: LOGO.filename, content: LOGO.bytes.toString('base64'), content_id: LOGO.cid },
      { filename: PAGE.filename, content: PAGE.bytes.toString('base64'), content_type: PAGE.type },
    ];
    const sent = await v1('POST', '/v1/send', { from_email: 'Acme Billing <billing@sandbox.mailroom.test>', to, subject, html: '<p>Your report is attached.</p>', attachments });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    return sent.body.data.message_id as string;
  };
  const attachmentRows = () => page.getByRole('region', { name: 'Attachments' }).locator('tbody tr');

  before(async () => {
    store = await freshStore();
    server = await startServe({ ...store.env, WORKER_POLL_MS: '20', RATE_LIMIT_OTHER_PER_MIN: '100000' });
    const { workspaceId, apiKey } = createWorkspace(store.env, 'Acme');
    v1 = v1Caller(server.base, apiKey);
    createMember(store.env, workspaceId, 'ada@example.com', 'viewer', PASSWORD);
    chromium = await launchBrowser();
    page = chromium.page;
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await signInOnPage(page, server.base, 'ada@example.com', PASSWORD);
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await store?.drop();
  });

  it('lists each attachment with its type, size and inline or not, and each download is the bytes sent, under the name sent', async () => {
    const id = await send('Your quarterly report', [LONG_RECIPIENT]);
    await page.goto(`${server.base}/messages/${id}`);
    await page.getByRole('heading', { name: 'Your quarterly report', level: 1 }).waitFor();
    await attachmentRows().first().waitFor();
    const cells = async (label: string) => attachmentRows().locator(`td[data-label="${label}"]`).allTextContents();
    assert.deepEqual(await cells('Name'), FILES.map((f) => f.filename));
    assert.deepEqual(await cells('Type'), FILES.map((f) => f.type));
    assert.deepEqual(await cells('Size'), ['178.1 KB (182,345 bytes)', '4.7 KB (4,811 bytes)', `${PAGE.bytes.length} bytes`]);
    assert.deepEqual(await cells('Shown as'), ['Attachment', `Inline cid:${LOGO.cid}`, 'Attachment']);

    for (const file of FILES) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: `Download ${file.filename}` }).click()]);
      assert.equal(download.suggestedFilename(), file.filename);
      assert.ok(readFileSync((await download.path())!).equals(file.bytes), `${file.filename}: the same bytes`);
    }
    // The HTML file was saved: the page stayed where it was, and nothing of it ran.
    assert.equal(new URL(page.url()).pathname, `/messages/${id}`);
    assert.deepEqual(dialogs, []);
    // Opened as an address of its own (a new tab), it is still a file to save, not a page of the dashboard's origin.
    const opened = await chromium.newPage();
    await opened.context().addCookies(await page.context().cookies());
    const href = (await page.getByRole('link', { name: `Download ${PAGE.filename}` }).getAttribute('href'))!;
    const [saved] = await Promise.all([opened.waitForEvent('download'), opened.goto(`${server.base}${href}`).catch((e: Error) => e)]);
    assert.ok(readFileSync((await saved.path())!).equals(PAGE.bytes));
    await opened.context().close();
    await chromium.shoot('message-attachments');
  });

  it('shows a recipient who complained after delivery as complained, as the Logs show the complaint', async () => {
    const id = await send('Your invoice', [COMPLAINER, 'delivered@simulator.mailroom.test']);
    await waitFor(async () => (await v1('GET', `/v1/messages/${id}`)).body.data.recipients[0].events.some((e: { type: string }) => e.type === 'complained'), 'the complaint recorded');
    const detail = (await v1('GET', `/v1/messages/${id}`)).body.data;
    assert.equal(detail.recipients[0].status, 'delivered', 'the send entry keeps its status: the complaint is an entry of its own');
    await page.goto(`${server.base}/messages/${id}`);
    const complainer = page.getByRole('region', { name: new RegExp(`^${COMPLAINER.replace(/\./g, '\\.')}`) });
    await complainer.getByRole('heading').filter({ hasText: 'complained' }).waitFor();
    assert.match((await complainer.getByRole('heading').textContent())!, /^complaint@simulator\.mailroom\.test complained delivered, then marked as spam$/);
    assert.equal(await complainer.locator('h3 .badge').textContent(), 'complained');
    assert.equal(await page.getByRole('region', { name: /^delivered@/ }).locator('h3 .badge').textContent(), 'delivered', 'a recipient who did not complain keeps its status');
    await chromium.shoot('message-complained');

    await page.goto(`${server.base}/logs?message_id=${id}&type=complaint`);
    await page.getByRole('cell', { name: COMPLAINER }).first().waitFor();
    assert.equal(await page.locator('tbody td[data-label="Status"] .badge').textContent(), 'complaint: complained', 'the Logs say the same');
  });

  it('lists the attachments once the content expired, and says the files are no longer kept instead of offering them', async () => {
    const id = await send('Your old report', ['delivered@simulator.mailroom.test']);
    const db = openDatabase(loadConfig(store.env));
    try {
      const pruner = createStore(db);
      await waitFor(async () => (await pruner.messages.findJobByMessage(id))?.state === 'done', 'the message delivered');
      const round = await createRetentionPruner({ store: pruner, settings: { contentDays: 30, logDays: 90 }, logger: pino({ level: 'silent' }), now: () => Date.now() + 31 * DAY_MS, pauseMs: 0 }).runOnce();
      assert.ok((round.rows.messages_content ?? 0) >= 1, "the content dropped");
    } finally {
      await db.destroy();
    }
    await page.goto(`${server.base}/messages/${id}`);
    const section = page.getByRole('region', { name: 'Attachments' });
    await section.getByText(/^The files are no longer kept: content expired on /).waitFor();
    assert.equal(await attachmentRows().count(), FILES.length);
    assert.equal(await section.getByRole('link').count(), 0, 'nothing to download');
    await chromium.shoot('message-attachments-expired');
  });

  it('passes axe-core on every state and logged no error', () => {
    assert.deepEqual(chromium.inaccessible, []);
    assert.deepEqual(unexpectedProblems(chromium.problems, [401]), []);
  });
});
