/**
 * The README's first hour, step by step as a newcomer takes it: `npm start`, the setup link its log prints,
 * the account and workspace made there, the shell line the dashboard then shows, the README's first-send
 * block run as written, and that send on the Overview and in the Logs of the dashboard just signed in to.
 * If the README's block and the dashboard diverge (the block making a key of its own, a workspace the
 * new admin does not see), the send is not found here and the test fails.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { npmStart, type NpmStart } from './helpers/npm-start.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const ROOT = join(import.meta.dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const FIRST_SEND = README.slice(README.indexOf('## A first send'));

describe("the README's first send, seen in the dashboard", () => {
  let store: FreshStore;
  let server: NpmStart;
  let chromium: TestBrowser;
  let page: Page;
  let exportLine: string;

  before(async () => {
    store = await freshStore();
    server = await npmStart(store.env);
    chromium = await launchBrowser();
    page = chromium.page;
  });
  after(async () => {
    await chromium?.close();
    if (server) {
      process.kill(-server.npm.pid!, 'SIGTERM');
      await server.exited;
    }
    await store?.drop();
  });

  it('tells the newcomer to paste the line the dashboard shows, and runs no CLI of its own for a key', () => {
    assert.ok(FIRST_SEND.length < README.length, 'README has "## A first send"');
    assert.match(FIRST_SEND.split('```sh')[0]!, /export MAILROOM_API_KEY=/, 'the prose before the block names the line to paste');
    assert.doesNotMatch(firstSendBlock(), /MAILROOM_API_KEY=/, 'the block takes the key the dashboard showed, rather than making one');
  });

  it('makes the account from the setup link and shows the shell line with the workspace key', async () => {
    const setupLink = /open (http:\/\/\S+\/setup\?token=\S+) within an hour/;
    await waitFor(() => setupLink.exec(server.output()), 'the setup link in the log');
    await page.goto(setupLink.exec(server.output())![1]!);
    await page.getByLabel('Your e-mail address').fill('ada@example.com');
    await page.getByLabel('Password (at least 10 characters)').fill('first admin password');
    await page.getByLabel('Workspace name').fill('Acme');
    await page.getByRole('button', { name: 'Create account and workspace' }).click();
    await page.getByRole('heading', { name: "The workspace's first API key" }).waitFor();
    exportLine = (await page.locator('code.shell-line').textContent())!;
    const apiKey = (await page.locator('code.secret:not(.shell-line)').textContent())!;
    assert.equal(exportLine, `export MAILROOM_API_KEY=${apiKey}`);
    await chromium.shoot('first-key-shell-line');
  });

  it("runs the README's block after that line, and the send shows on the Overview and in the Logs", async () => {
    // Only the port differs from the README: 3000 may be taken on a test machine.
    const script = `${exportLine}\n${firstSendBlock().replaceAll('http://127.0.0.1:3000', server.base)}`;
    const { MAILROOM_API_KEY: _, ...env } = process.env;
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    const send = JSON.parse(/^\{"success".*?\}\}/.exec(stdout)![0]);
    assert.equal(send.data.status, 'sent', stdout);

    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // The send is counted when it is accepted, so the Overview loaded after it shows it.
    await page.getByRole('link', { name: /^Sent\s*1$/ }).waitFor();
    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    const row = page.getByRole('row', { name: /ada@example\.com/ });
    await row.waitFor();
    assert.match((await row.textContent())!, /Hello/);
    await row.getByRole('link', { name: 'Hello' }).click();
    await page.getByText(send.data.message_id).first().waitFor();
    await chromium.shoot('first-send-message');
    assert.deepEqual(unexpectedProblems(chromium.problems, [401]), [], 'only the signed-out session check before setup failed');
  });
});

/** The first shell block under the README's "## A first send": what a newcomer copies. */
function firstSendBlock(): string {
  const block = /```sh\n([\s\S]*?)```/.exec(FIRST_SEND)?.[1];
  assert.ok(block, 'README has a shell block under "## A first send"');
  return block;
}
