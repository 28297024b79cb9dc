/**
 * The message page in Chromium against a real `mailroom serve` delivering
 * over SMTP to a real relay on loopback and taking reports on its real
 * inbound receiver: a recipient's timeline after a delivery (the relay's
 * reply and the hand-over's duration), a DSN bounce and an ARF complaint
 * from the shared corpus (sent as they are), the webhook deliveries with a
 * retry, the content tabs and the .eml download; then a hostile message,
 * which opens no dialog, sends no request anywhere but Mailroom until the
 * reader asks for remote images (and then only the image), and leaves the
 * page's own DOM as it was. axe-core audits every state.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import type { Page } from 'playwright-core';
import { launchBrowser, unexpectedProblems, type TestBrowser } from './helpers/browser.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { freePort } from './helpers/free-port.js';
import * as hostile from './helpers/hostile-mail.js';
import { BIN, mailroomCommand, startServe, showServeOutputOfFailedTests, type ServeProcess } from './helpers/serve-process.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const PASSWORD = 'a long enough password';
const CORPUS = [process.env.MAILROOM_CORPORA_DIR, join(import.meta.dirname, '..', '..', 'shared', 'corpora'), '/work/shared/corpora']
  .filter((dir): dir is string => Boolean(dir))
  .map((dir) => join(dir, 'bounces', 'emails'))
  .find((dir) => existsSync(dir))!;
/** A Postfix DSN (5.1.1, unknown user) and a Hotmail ARF report (abuse), each about one address, which the first message is sent to. */
const BOUNCED = 'kijitora@2jo.example.jp';
const COMPLAINED = 'kijitora@example.com';
const corpusFile = (name: string) => readFileSync(join(CORPUS, name));
/** A 1×1 PNG, the remote image's stand-in once the reader lets it load. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
/**
 * The browser's own console lines when the frame's CSP or sandbox refuses
 * something: the evidence, not a fault. Not Chromium's refusal of a meta
 * refresh: the server makes that inert before the browser sees it.
 */
const REFUSAL = /violates the following Content Security Policy directive|frame is sandboxed/;
/**
 * The remote image as requested once allowed: as written (http:), or as https:
 * where the browser upgrades mixed content (an https dashboard).
 */
const REMOTE_IMAGE = new RegExp(`^https?${hostile.REMOTE_IMAGE.slice('http'.length).replace(/\./g, '\\.')}$`);

describe('the message page in Chromium', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let receiver: WebhookReceiver;
  let answer = 503;
  let inboundPort = 0;
  let server: ServeProcess;
  let chromium: TestBrowser;
  let page: Page;
  let apiKey = '';
  let workspaceId = '';
  let firstId = '';
  /** Requests for anywhere but Mailroom the page made, and those of them that reached the network layer (not refused by a CSP first). */
  const outside: string[] = [];
  const left: string[] = [];
  const refusedByCsp = new Set<string>();
  let imageHeaders: Record<string, string> | undefined;
  const dialogs: string[] = [];

  const v1 = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.base}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: any } };
  };
  const createUser = (email: string, role: string) => {
    const args = ['user', 'create', '--email', email, '--password-stdin', '--workspace', workspaceId, '--role', role];
    const run = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...store.env }, input: `${PASSWORD}\n`, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
  };
  async function signIn(on: Page, email: string) {
    await on.goto(server.base);
    await on.getByLabel('E-mail address').fill(email);
    await on.getByLabel('Password').fill(PASSWORD);
    await on.getByRole('button', { name: 'Sign in' }).click();
    await on.getByRole('heading', { name: 'Overview' }).waitFor();
  }
  /** Hands a report to the inbound receiver as an MTA would: null sender, to the return path the relay saw. */
  async function report(returnPath: string, raw: Buffer) {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: inboundPort, secure: false, ignoreTLS: true });
    try {
      return (await transport.sendMail({ envelope: { from: '', to: [returnPath] }, raw })).response;
    } finally {
      transport.close();
    }
  }
  const returnPathOf = (to: string) => {
    const { mailFrom } = sink.received.find((m) => m.envelope.rcptTo.some((r) => r.address === to))!.envelope;
    assert.ok(mailFrom, `the return path of ${to}`);
    return mailFrom.address;
  };
  const timeline = (to: string) => page.getByRole('list', { name: `Timeline of ${to}` });
  const frame = () => page.frameLocator('iframe.mail-frame');

  before(async () => {
    store = await freshStore();
    dns = await startDnsServer();
    sink = await startSmtpSink({ policy: (to) => (to.startsWith('refused@') ? { code: 550, text: hostile.HOSTILE_RELAY_REPLY } : undefined) });
    receiver = await startWebhookReceiver(() => answer);
    inboundPort = await freePort();
    server = await startServe({
      ...store.env, DNS_SERVERS: dns.address, MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${sink.port}`, WORKER_POLL_MS: '20',
      INBOUND_SMTP_PORT: String(inboundPort), WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '600000',
      // Lifted: messages are polled through the API every 25 ms until they settle; the default 60 a minute would
      // answer 429, and nothing else for the rest of the minute, on a machine slow enough to take 1.5 s.
      RATE_LIMIT_OTHER_PER_MIN: '100000',
    });
    const created = mailroomCommand(['workspace', 'create', '--name', 'Acme', '--json'], store.env);
    assert.equal(created.status, 0, created.stderr);
    ({ workspace_id: workspaceId, api_key: apiKey } = JSON.parse(created.stdout) as { workspace_id: string; api_key: string });
    createUser('ada@example.com', 'admin');
    createUser('vic@example.com', 'viewer');
    const domain = (await v1('POST', '/v1/domains', { domain: 'payload.example' })).body.data;
    const dkim = domain.records.find((r: { purpose: string }) => r.purpose === 'dkim');
    dns.setTxt(dkim.name, [dkim.value]);
    assert.equal((await v1('POST', `/v1/domains/${domain.id}/verify`)).body.data.status, 'verified');
    assert.equal((await v1('POST', '/v1/webhooks', { url: receiver.url })).status, 201);

    chromium = await launchBrowser();
    page = chromium.page;
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('request', (request) => {
      if (!request.url().startsWith(`${server.base}/`)) outside.push(request.url());
    });
    page.on('requestfailed', (request) => {
      // Chromium's DevTools announce a load that its CSP then refuses as a request, failed as `csp`.
      if (request.failure()?.errorText === 'csp') refusedByCsp.add(request.url());
    });
    // What would go out over the network is stopped here: the remote image answered, anything else refused.
    await page.context().route(
      (url) => !url.href.startsWith(`${server.base}/`),
      (route) => {
        left.push(route.request().url());
        if (!REMOTE_IMAGE.test(route.request().url())) return route.abort();
        imageHeaders = route.request().headers();
        return route.fulfill({ contentType: 'image/png', body: PIXEL });
      },
    );
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
    await receiver?.close();
    await sink?.close();
    await dns?.close();
    await store?.drop();
  });

  it("shows each recipient's timeline: the relay's reply and the hand-over's duration, a DSN bounce and an ARF complaint from the corpus", async () => {
    const to = ['taken@elsewhere.example', BOUNCED, COMPLAINED];
    const sent = await v1('POST', '/v1/send', { to, from_email: 'Acme Billing <billing@payload.example>', reply_to: 'Help <help@payload.example>', subject: 'Your receipt', html: '<h1>Thanks</h1><p>Your receipt.</p>', text: 'Thanks: your receipt.' });
    firstId = sent.body.data.message_id;
    await waitFor(() => to.every((address) => sink.received.some((m) => m.envelope.rcptTo.some((r) => r.address === address))), 'the relay took all three');
    // The page is open before the reports come back: they must show on it by themselves (live), within 2 seconds.
    await signIn(page, 'ada@example.com');
    await page.goto(`${server.base}/messages/${firstId}`);
    await page.getByRole('heading', { name: 'Your receipt', level: 1 }).waitFor();
    await timeline(BOUNCED).getByText('accepted').first().waitFor();
    assert.match(await report(returnPathOf(BOUNCED), corpusFile('lhost-postfix-14.eml')), /^250 2\.0\.0 Report recorded/);
    const recorded = Date.now();
    await timeline(BOUNCED).getByText('bounced').first().waitFor({ timeout: 5000 });
    assert.ok(Date.now() - recorded < 2000, `the bounce shown ${Date.now() - recorded} ms after it was recorded`);
    assert.match(await report(returnPathOf(COMPLAINED), corpusFile('arf-23.eml')), /^250 2\.0\.0 Report recorded/);
    const detail = await waitFor(async () => {
      const data = (await v1('GET', `/v1/messages/${firstId}`)).body.data;
      return data.webhook_deliveries.length === 2 && data.webhook_deliveries.every((d: { attempts: number }) => d.attempts === 1) && data;
    }, 'the bounce and the complaint recorded, and their webhook deliveries tried once');

    await timeline(COMPLAINED).getByText('complained').first().waitFor({ timeout: 5000 });
    // The complaint is an entry of its own, leaving the send entry's status: the page shows it as the latest news.
    assert.equal(await page.locator('.recipient h3', { hasText: COMPLAINED }).locator('.badge').textContent(), 'complained');
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Logs' }).getAttribute('aria-current'), 'page');
    const facts = await page.locator('.message-facts').textContent();
    for (const fact of ['Acme Billing <billing@payload.example>', 'Help <help@payload.example>', to.join(', '), `${detail.size_bytes.toLocaleString('en-US')} bytes`, firstId]) {
      assert.ok(facts!.includes(fact), `the facts show ${fact}: ${facts}`);
    }

    const [taken] = detail.recipients;
    const delivery = timeline('taken@elsewhere.example');
    await delivery.getByText(taken.attempts[0].reply, { exact: true }).waitFor();
    assert.match((await delivery.textContent())!, new RegExp(`Attempt 1accepted\\s*via smtp · took ${taken.attempts[0].duration_ms} ms`));
    assert.match((await timeline(BOUNCED).textContent())!, /Attempt 1accepted.*Eventbounced\s*Bounced.*5\.1\.1.*unknown user: "kijitora"/);
    assert.match((await timeline(COMPLAINED).textContent())!, /Attempt 1accepted.*Eventcomplained\s*Marked as spam\s*Detail: abuse/);
    await page.getByRole('button', { name: 'Copy ID' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), firstId);
    await chromium.shoot('message-timeline');

    // The receiver refused both posts; the next attempt is minutes away, so only Retry posts again now.
    const hooks = page.locator('table.message-hooks tbody tr');
    assert.deepEqual(await hooks.locator('td[data-label="Status"]').allTextContents(), ['pending1 attempt', 'pending1 attempt']);
    answer = 200;
    await page.getByRole('button', { name: `Retry the bounced delivery to ${receiver.url}` }).click();
    await hooks.filter({ hasText: 'bounced' }).locator('td[data-label="Status"]', { hasText: 'delivered2 attempts' }).waitFor();
    assert.equal(receiver.received.length, 3);
  });

  it('shows the text part and the MIME as sent, and downloads it as .eml; a viewer reads it all but retries nothing', async () => {
    await page.getByRole('tab', { name: 'Text' }).click();
    await page.getByRole('tabpanel').getByText('Thanks: your receipt.').waitFor();
    await page.getByRole('tab', { name: 'Text' }).press('ArrowRight');
    assert.equal(await page.getByRole('tab', { name: 'Raw MIME' }).getAttribute('aria-selected'), 'true', 'the arrow keys move along the tabs');
    const raw = (await v1('GET', `/v1/messages/${firstId}/content`)).body.data.raw as string;
    assert.equal(await page.locator('pre.mail-source').textContent(), raw);
    await chromium.shoot('message-raw');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download .eml' }).click()]);
    assert.equal(download.suggestedFilename(), `${firstId}.eml`);
    assert.equal(readFileSync((await download.path())!, 'utf8'), raw);

    const viewer = await chromium.newPage();
    await signIn(viewer, 'vic@example.com');
    await viewer.goto(`${server.base}/messages/${firstId}`);
    await viewer.getByRole('table').getByText('bounced').waitFor();
    assert.equal(await viewer.getByRole('button', { name: /^Retry/ }).count(), 0);
    await viewer.frameLocator('iframe.mail-frame').getByRole('heading', { name: 'Thanks' }).waitFor();
    await chromium.audit('message-viewer', viewer);
    // Any id is a page the server answers (and reloads); one that is not the workspace's says so.
    const unknown = await fetch(`${server.base}/messages/msg_01jzzzzzzzzzzzzzzzzzzzzzzz`);
    assert.deepEqual([unknown.status, unknown.headers.get('content-type')], [200, 'text/html; charset=utf-8']);
    assert.match(unknown.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    await viewer.goto(unknown.url);
    await viewer.getByRole('alert').filter({ hasText: 'Message not found' }).waitFor();
    await viewer.context().close();
  });

  it('shows when a scheduled send is due and cancels it for an admin, asking first; a viewer cannot', async () => {
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const sent = await v1('POST', '/v1/send', {
      to: ['later@elsewhere.example'], from_email: 'billing@payload.example', subject: 'Your reminder', text: 'Soon.', scheduled_at: scheduledAt,
      tags: [{ name: 'kind', value: 'reminder' }, { name: 'plan', value: 'pro' }],
    });
    const id = sent.body.data.message_id as string;
    await page.goto(`${server.base}/messages/${id}`);
    await page.getByRole('heading', { name: 'Your reminder', level: 1 }).waitFor();
    assert.equal(await page.locator('.message-facts time').nth(1).getAttribute('datetime'), scheduledAt);
    assert.deepEqual(await page.getByRole('list', { name: 'Tags' }).getByRole('listitem').allTextContents(), ['kind: reminder', 'plan: pro']);

    const viewer = await chromium.newPage();
    await signIn(viewer, 'vic@example.com');
    await viewer.goto(`${server.base}/messages/${id}`);
    await viewer.getByRole('heading', { name: 'Your reminder', level: 1 }).waitFor();
    await viewer.getByText('Scheduled', { exact: true }).waitFor();
    assert.equal(await viewer.getByRole('button', { name: 'Cancel this scheduled send' }).count(), 0);
    await viewer.context().close();

    await page.getByRole('button', { name: 'Cancel this scheduled send' }).click();
    await chromium.shoot('message-scheduled-cancel');
    await page.getByRole('group', { name: 'Cancel this scheduled send?' }).getByRole('button', { name: 'Cancel send' }).click();
    await timeline('later@elsewhere.example').getByText('Canceled before sending').first().waitFor();
    assert.equal(await page.getByRole('button', { name: 'Cancel this scheduled send' }).count(), 0, 'nothing left to cancel');
    const detail = (await v1('GET', `/v1/messages/${id}`)).body.data;
    assert.deepEqual([detail.recipients[0].status, detail.recipients[0].error], ['failed', 'Canceled before sending']);
    await chromium.shoot('message-scheduled-canceled');
  });

  it('shows a hostile message without running, loading or changing anything until asked', async () => {
    const sent = await v1('POST', '/v1/send', { to: ['refused@elsewhere.example'], from_email: hostile.HOSTILE_FROM, reply_to: hostile.HOSTILE_REPLY_TO, subject: hostile.HOSTILE_SUBJECT, html: hostile.HOSTILE_HTML, text: hostile.HOSTILE_TEXT });
    const id = sent.body.data.message_id as string;
    await waitFor(async () => (await v1('GET', `/v1/messages/${id}`)).body.data.recipients[0].status === 'bounced', 'the relay refused it');

    await page.goto(`${server.base}/messages/${id}`);
    await page.getByRole('heading', { name: hostile.HOSTILE_SUBJECT, level: 1 }).waitFor();
    const title = await page.title();
    await page.evaluate(() => document.body.setAttribute('data-marker', 'untouched'));
    await frame().locator('#mail-marker').waitFor();
    await (await (await page.locator('iframe.mail-frame').elementHandle())!.contentFrame())!.waitForLoadState('load');
    await frame().locator('#js-link').dispatchEvent('click');
    await frame().locator('#submit').dispatchEvent('click');
    assert.equal(left.length, 0, `nothing went out before the reader asked: ${left.join(', ')}`);
    const onlyRefused = () => waitFor(() => outside.every((url) => refusedByCsp.has(url) || left.includes(url)), "every other request the mail makes refused by the frame's policy");
    await onlyRefused();
    const refused = timeline('refused@elsewhere.example');
    assert.ok((await refused.textContent())!.includes(hostile.HOSTILE_RELAY_REPLY), 'the bounce text, as text');
    const facts = (await page.locator('.message-facts').textContent())!;
    assert.ok(facts.includes(`<img src=x onerror=alert('from')> <news@payload.example>`) && facts.includes(hostile.HOSTILE_REPLY_TO), facts);
    await chromium.shoot('message-hostile');

    // The box that covers the mail's own viewport covers the frame alone: the page's button takes the click.
    const [cover, box] = await Promise.all([frame().locator('.cover').boundingBox(), page.locator('iframe.mail-frame').boundingBox()]);
    assert.ok(cover && box && cover.y >= box.y - 1 && cover.y + cover.height <= box.y + box.height + 1, `the cover ${JSON.stringify(cover)} stays in ${JSON.stringify(box)}`);
    await page.getByRole('button', { name: 'Load remote images' }).click();
    await waitFor(() => imageHeaders, 'the remote image requested');
    await page.getByText('Remote images are shown.').waitFor();
    await (await (await page.locator('iframe.mail-frame').elementHandle())!.contentFrame())!.waitForLoadState('load');
    await onlyRefused();
    assert.equal(left.length, 1, `the image, and nothing else the mail names: ${left.join(', ')}`);
    assert.match(left[0]!, REMOTE_IMAGE);
    assert.equal(imageHeaders!.referer, undefined, "the image's host is not told the dashboard's address");
    await chromium.shoot('message-hostile-remote');

    assert.deepEqual(dialogs, []);
    assert.equal(await page.evaluate(() => (window as { __pwned?: string }).__pwned), undefined);
    assert.deepEqual([await page.title(), await page.evaluate(() => document.body.dataset.marker), new URL(page.url()).pathname], [title, 'untouched', `/messages/${id}`]);
    assert.equal(await page.locator('#mail-marker, .cover, main img, main script, main svg, main form, main object').count(), 0, 'nothing of the mail outside its frame');
  });

  it('passes axe-core on every state, and logged nothing but the refusals of the hostile mail', () => {
    assert.deepEqual(chromium.inaccessible, []);
    const refusals = chromium.problems.filter((p) => REFUSAL.test(p));
    assert.ok(refusals.length > 0, 'the browser said what it refused');
    // 401: the session asked for before signing in; 404: the unknown message.
    assert.deepEqual(unexpectedProblems(chromium.problems.filter((p) => !REFUSAL.test(p)), [401, 404]), []);
  });
});
