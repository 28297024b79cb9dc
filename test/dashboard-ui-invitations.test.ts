/**
 * Invitations in a real browser, against a real `mailroom serve`: the admin makes
 * a viewer's link on Members and copies it; a second browser context (its own
 * cookies) opens it, creates an account and lands in the workspace, where the UI
 * offers a viewer nothing to change and the server refuses a forged change (403);
 * the used link is refused; an existing account signs in first, then joins.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ALREADY_MEMBER, INVITATION_REFUSED } from '../src/people/index.js';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const ADMIN_PASSWORD = 'first admin password';
const VIEWER_PASSWORD = 'a viewer password';
const SETUP_LINK = /open (http:\/\/\S+\/setup\?token=\S+) within an hour/;

describe('invitations in Chromium', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let server: ServeProcess;
  let chromium: TestBrowser;
  let admin: Page;
  let viewer: Page;
  let viewerLink: string;
  /** Every link made, to look for in the server's log. */
  const links: string[] = [];

  before(async () => {
    store = await freshStore();
    server = await startServe(store.env);
    chromium = await launchBrowser();
    admin = chromium.page;
    await admin.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await store?.drop();
  });

  /** On Members, as an admin: a link for `role`, as the page shows it. */
  async function createLink(role: string): Promise<string> {
    await admin.getByRole('link', { name: 'Members' }).click();
    await admin.getByRole('heading', { name: 'Invite someone' }).waitFor();
    // The section has read its pending invitations: nothing re-renders it under the test's hands now.
    await admin.locator('.invite-section').getByText(/No pending invitations|Revoke/).first().waitFor();
    const made = admin.getByRole('heading', { name: /^Invitation link for a / });
    // A link shown before is put away first, so that what shows next is this one.
    if ((await made.count()) > 0) await admin.locator('.invite-link').getByRole('button', { name: 'Done' }).click();
    await made.waitFor({ state: 'detached' });
    await admin.getByLabel('Role', { exact: true }).selectOption(role);
    await waitFor(async () => (await admin.getByLabel('Role', { exact: true }).inputValue()) === role, `the ${role} role chosen`);
    await admin.getByRole('button', { name: 'Create invitation link' }).click();
    // The link made, or the server's refusal: either says what happened.
    const section = admin.locator('.invite-section');
    await section.getByRole('alert').or(made).first().waitFor();
    const refusal = (await section.getByRole('alert').count()) > 0 ? await section.getByRole('alert').first().textContent() : null;
    assert.equal(refusal, null, `the invitation was refused: ${refusal}`);
    assert.equal(await made.textContent(), `Invitation link for a ${role}`);
    // Never one handed out before (links are single-use).
    const link = await waitFor(async () => {
      const shown = await admin.locator('.invite-link code.secret').textContent();
      return shown && !links.includes(shown) ? shown : undefined;
    }, 'the new link');
    links.push(link);
    return link;
  }

  it('lets the first admin make a viewer invitation on Members, and copy its link', async () => {
    await waitFor(() => SETUP_LINK.exec(server.output()), 'the setup link in the log');
    await admin.goto(SETUP_LINK.exec(server.output())![1]!);
    await admin.getByLabel('Your e-mail address').fill('ada@example.com');
    await admin.getByLabel('Password (at least 10 characters)').fill(ADMIN_PASSWORD);
    await admin.getByLabel('Workspace name').fill('Acme');
    await admin.getByRole('button', { name: 'Create account and workspace' }).click();
    await admin.getByRole('heading', { name: "The workspace's first API key" }).waitFor();

    viewerLink = await createLink('viewer');
    assert.match(viewerLink, new RegExp(`^${server.base}/invite\\?token=[A-Za-z0-9_-]{43}$`));
    assert.equal(await admin.getByText('Valid for 7 days, usable once.').isVisible(), true);
    await admin.locator('.invite-link').getByRole('button', { name: 'Copy' }).click();
    await admin.locator('.invite-link').getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await admin.evaluate(() => navigator.clipboard.readText()), viewerLink, 'the copy button copies the whole link');
    await admin.getByRole('row', { name: /viewer\s*ada@example\.com/ }).waitFor();
    await chromium.shoot('invitation-created');
  });

  it('revokes a pending invitation after a confirmation', async () => {
    await createLink('developer');
    const row = admin.getByRole('row', { name: /developer\s*ada@example\.com/ });
    await row.getByRole('button', { name: /^Revoke the developer invitation/ }).click();
    await row.getByRole('button', { name: 'Revoke invitation' }).click();
    await row.waitFor({ state: 'detached' });
    assert.equal(await admin.getByRole('row', { name: /viewer\s*ada@example\.com/ }).count(), 1, 'the other one stays');
  });

  it('opens the link in another browser context, creates an account and lands in the workspace', async () => {
    viewer = await chromium.newPage(); // a context of its own: no cookie of the admin's
    await viewer.goto(viewerLink);
    await viewer.getByRole('heading', { name: 'Join Acme' }).waitFor();
    await viewer.locator('p').filter({ hasText: 'ada@example.com invited you to Acme as viewer.' }).waitFor();
    await chromium.shoot('invite-signed-out', viewer);
    await viewer.getByLabel('Your e-mail address').fill('vera@example.com');
    await viewer.getByLabel('Password (at least 10 characters)').fill(VIEWER_PASSWORD);
    await viewer.getByRole('button', { name: 'Create account and join Acme' }).click();
    await viewer.getByRole('combobox', { name: 'Workspace' }).waitFor();
    assert.equal(new URL(viewer.url()).pathname, '/');
    assert.equal(await viewer.getByRole('combobox', { name: 'Workspace' }).locator('option:checked').textContent(), 'Acme');
    assert.equal(await viewer.locator('.who').textContent(), 'vera@example.com');
    await chromium.shoot('invite-joined', viewer);
  });

  it("shows a viewer no way to change API keys or members, and the server refuses the viewer's forged POST with 403", async () => {
    await viewer.getByRole('link', { name: 'API keys' }).click();
    await viewer.getByRole('heading', { name: 'Keys of this workspace' }).waitFor();
    await viewer.getByRole('row', { name: /default/ }).waitFor();
    assert.equal(await viewer.getByRole('heading', { name: 'Create a key' }).count(), 0);
    assert.equal(await viewer.getByRole('button', { name: /^Delete/ }).count(), 0);

    await viewer.getByRole('link', { name: 'Members' }).click();
    await viewer.getByRole('row', { name: /vera@example\.com \(you\)\s*viewer/ }).waitFor();
    assert.equal(await viewer.getByRole('heading', { name: 'Invite someone' }).count(), 0);
    assert.equal(await viewer.getByRole('combobox', { name: /^Role/ }).count(), 0);
    assert.equal(await viewer.getByRole('button', { name: /^Remove/ }).count(), 0);
    await chromium.shoot('members-viewer', viewer);

    const forged = await viewer.evaluate(async () => {
      const session = (await (await fetch('/dashboard/api/session')).json()) as { data: { csrf_token: string; workspaces: Array<{ id: string }> } };
      const res = await fetch(`/dashboard/api/workspaces/${session.data.workspaces[0]!.id}/api-keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.data.csrf_token },
        body: JSON.stringify({ name: 'forged' }),
      });
      return { status: res.status, body: await res.json() };
    });
    assert.deepEqual(forged, { status: 403, body: { success: false, error: 'A viewer of this workspace cannot do this' } });
  });

  it("refuses the used link with the server's sentence, signed in or not", async () => {
    await viewer.goto(viewerLink);
    await viewer.getByRole('alert').filter({ hasText: INVITATION_REFUSED }).waitFor();
    await chromium.shoot('invite-used', viewer);
    const stranger = await chromium.newPage();
    await stranger.goto(viewerLink);
    await stranger.getByRole('alert').filter({ hasText: INVITATION_REFUSED }).waitFor();
    assert.equal(await stranger.getByRole('button', { name: /Create account/ }).count(), 0);
    await stranger.close();
  });

  it('says so when a member opens a link to their own workspace, and leaves the link usable', async () => {
    const link = await createLink('developer');
    await viewer.goto(link);
    await viewer.getByRole('button', { name: 'Join Acme' }).click();
    await viewer.getByRole('alert').filter({ hasText: ALREADY_MEMBER }).waitFor();
    await chromium.shoot('invite-already-member', viewer);
  });

  it('lets an existing account sign in first, stay on the invitation, join, and open the new workspace', async () => {
    await admin.getByRole('link', { name: 'Settings' }).click();
    await admin.getByLabel('Workspace name').fill('Side project');
    await admin.getByRole('button', { name: 'Create workspace' }).click();
    await admin.getByRole('heading', { name: "The workspace's first API key" }).waitFor();
    const link = await createLink('developer');

    await viewer.goto(link);
    await viewer.getByRole('button', { name: 'Join Side project' }).waitFor();
    await viewer.getByRole('button', { name: 'Sign out' }).click(); // "Not you?": signed out, still on the invitation
    await viewer.getByRole('button', { name: 'Sign in to join' }).click();
    await viewer.getByRole('heading', { name: 'Sign in to join' }).waitFor();
    await chromium.shoot('invite-sign-in-first', viewer);
    await viewer.getByLabel('E-mail address').fill('vera@example.com');
    await viewer.getByLabel('Password').fill(VIEWER_PASSWORD);
    await viewer.getByRole('button', { name: 'Sign in', exact: true }).click();
    await viewer.getByText('You are signed in as').waitFor();
    assert.equal(new URL(viewer.url()).href, link, 'still on the invitation after signing in');
    await chromium.shoot('invite-signed-in', viewer);
    await viewer.getByRole('button', { name: 'Join Side project' }).click();
    await viewer.getByRole('combobox', { name: 'Workspace' }).waitFor();
    assert.equal(await viewer.getByRole('combobox', { name: 'Workspace' }).locator('option:checked').textContent(), 'Side project');
    const options = await viewer.getByRole('combobox', { name: 'Workspace' }).locator('option').allTextContents();
    assert.deepEqual(options.sort(), ['Acme', 'Side project']);
  });

  it('kept every link token out of the server log', () => {
    assert.equal(links.length, 4);
    for (const link of links) assert.ok(!server.output().includes(new URL(link).searchParams.get('token')!), 'no token in the log');
    assert.match(server.output(), /\/dashboard\/api\/invitations\/\[redacted\]/, 'the requests are logged, without it');
  });

  it('passes axe-core on every state it looked at, and logged no unexpected error', () => {
    assert.deepEqual(chromium.inaccessible, []);
    // 401: signed out at first; 403: the forged POST; 404: the used link; 409: the member's own workspace.
    assert.deepEqual(unexpectedProblems(chromium.problems, [401, 403, 404, 409]), []);
  });
});
