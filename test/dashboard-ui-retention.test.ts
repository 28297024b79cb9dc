/**
 * The message page in Chromium once CONTENT_RETENTION_DAYS has passed: a real
 * `mailroom serve` delivers a send through the sandbox provider, the
 * retention pruner (clock 31 days ahead, on a connection of its own as a
 * second process would have) drops its content, and the page says so in
 * place of the body tabs while the recipients' timeline stays. Screenshots
 * at 1440 and 390 pixels wide go to MAILROOM_SCREENSHOTS when it is set.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { createStore } from '../src/composition/store.js';
import { createRetentionPruner } from '../src/retention/index.js';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { BIN, mailroomCommand, startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const PASSWORD = 'a long enough password';
const DAY_MS = 86_400_000;

describe('expired content on the message page in Chromium', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  let chromium: TestBrowser;
  let apiKey = '';

  before(async () => {
    store = await freshStore();
    server = await startServe({ ...store.env, WORKER_POLL_MS: '20' });
    const created = mailroomCommand(['workspace', 'create', '--name', 'Acme', '--json'], store.env);
    assert.equal(created.status, 0, created.stderr);
    const { workspace_id: workspaceId, api_key } = JSON.parse(created.stdout) as { workspace_id: string; api_key: string };
    apiKey = api_key;
    const user = spawnSync(process.execPath, [BIN, 'user', 'create', '--email', 'ada@example.com', '--password-stdin', '--workspace', workspaceId, '--role', 'admin'], {
      env: { ...process.env, ...store.env }, input: `${PASSWORD}\n`, encoding: 'utf8',
    });
    assert.equal(user.status, 0, user.stderr);
    chromium = await launchBrowser();
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await store?.drop();
  });

  it('says when the content expired instead of showing the body, and keeps the timeline', async () => {
    const res = await fetch(`${server.base}/v1/send`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ from_email: 'Acme <billing@sandbox.mailroom.test>', to: ['delivered@simulator.mailroom.test'], subject: 'Your receipt', html: '<p>Thanks</p>' }),
    });
    assert.equal(res.status, 200);
    const id = ((await res.json()) as { data: { message_id: string } }).data.message_id;
    const db = openDatabase(loadConfig(store.env));
    try {
      const pruner = createStore(db);
      await waitFor(async () => (await pruner.messages.findJobByMessage(id))?.state === 'done', 'the message delivered');
      const round = await createRetentionPruner({ store: pruner, settings: { contentDays: 30, logDays: 90 }, logger: pino({ level: 'silent' }), now: () => Date.now() + 31 * DAY_MS, pauseMs: 0 }).runOnce();
      assert.equal(round.rows.messages_content, 1);
    } finally {
      await db.destroy();
    }

    const page = chromium.page;
    await page.goto(server.base);
    await page.getByLabel('E-mail address').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto(`${server.base}/messages/${id}`);
    await page.getByRole('heading', { name: 'Your receipt', level: 1 }).waitFor();
    const content = page.getByRole('region', { name: 'Content' });
    await content.getByText(/^Content expired on /).waitFor();
    assert.equal(await content.getByRole('tab').count(), 0, 'no body tabs');
    assert.equal(await page.locator('iframe.mail-frame').count(), 0, 'no frame asking for the dropped body');
    await page.getByText('No longer kept (content expired)').waitFor();
    await page.getByRole('list', { name: 'Timeline of delivered@simulator.mailroom.test' }).getByText('delivered').first().waitFor();
    await chromium.shoot('message-content-expired');
    assert.deepEqual(unexpectedProblems(chromium.problems, [401]), []);
  });
});
