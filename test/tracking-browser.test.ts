/**
 * A person reading tracked mail in a real browser (issue 57, point 6): the HTML as the relay received it
 * is shown in Chromium, which fetches the open pixel and follows the tracked link through `mailroom
 * serve`'s 302 to the page the link named; both become events of the message, a person's.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { launchBrowser, type TestBrowser } from './helpers/browser.js';
import { smtpWorkspace, type SmtpWorkspace } from './helpers/delivery-rig.js';
import { freePort } from './helpers/free-port.js';
import { showServeOutputOfFailedTests, startServe, type ServeProcess } from './helpers/serve-process.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { migratedStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const DOMAIN = 'browser-tracking.example';
// A reader's browser: headless Chromium's own user agent names it a scanner (docs/tracking.md).
const READER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('a reader opens tracked mail and follows its link in Chromium', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let ws: SmtpWorkspace;
  let sink: SmtpSink;
  let serve: ServeProcess;
  let browser: TestBrowser;
  let landing: ReturnType<typeof createServer>;
  let landingUrl: string;
  const landed: { url: string; headers: IncomingHttpHeaders }[] = [];

  before(async () => {
    store = await migratedStore();
    ws = await smtpWorkspace(store.env, DOMAIN);
    sink = await startSmtpSink();
    landing = createServer((req, res) => {
      landed.push({ url: req.url!, headers: req.headers });
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Welcome aboard</title><h1>Welcome aboard</h1>');
    });
    landing.listen(0, '127.0.0.1');
    await once(landing, 'listening');
    landingUrl = `http://127.0.0.1:${(landing.address() as { port: number }).port}/welcome?plan=team&from=mail`;
    const port = await freePort();
    serve = await startServe({
      ...store.env, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      RATE_LIMIT_OTHER_PER_MIN: '100000',
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await serve?.stop();
    await sink?.close();
    landing?.close();
    await ws?.db.destroy();
    await store?.drop();
  });

  it('records the open and the click as a person’s and lands on the page the link named', async () => {
    const sent = await fetch(`${serve.base}/v1/send`, {
      method: 'POST',
      headers: { 'x-api-key': ws.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        from_email: ws.from, to: ['reader@example.net'], subject: 'Welcome to the team plan', track_opens: true, track_clicks: true,
        html: `<!doctype html><html><body><h1>Welcome</h1><p><a id="start" href="${landingUrl.replace(/&/g, '&amp;')}">Get started</a></p></body></html>`,
      }),
    });
    const messageId = ((await sent.json()) as { data: { message_id: string } }).data.message_id;
    await waitFor(() => sink.received.length === 1, 'the message at the relay');
    const html = String((await simpleParser(sink.received[0]!.raw)).html);
    // A reader opens it a minute after it arrived, not within the seconds a scanner follows links in. The relay has
    // the message before the worker records the hand-over: wait for that record, then move it back a minute.
    await waitFor(() => ws.db.selectFrom('delivery_attempts').select('id').where('message_id', '=', messageId).where('outcome', '=', 'accepted').executeTakeFirst(), 'the hand-over recorded');
    await ws.db.updateTable('delivery_attempts').set({ created_at: new Date(Date.now() - 60_000).toISOString() }).where('message_id', '=', messageId).execute();

    const page = await (await browser.browser.newContext({ userAgent: READER })).newPage();
    const pixel = page.waitForResponse((res) => res.url().includes('/t/o/'));
    await page.setContent(html);
    assert.equal((await pixel).status(), 200);
    await Promise.all([page.waitForURL(landingUrl), page.click('#start')]);
    assert.equal(await page.locator('h1').textContent(), 'Welcome aboard');
    // The page, and the favicon Chromium asks for beside it.
    const pages = landed.filter((l) => l.url.startsWith('/welcome'));
    assert.deepEqual(pages.map((l) => l.url), ['/welcome?plan=team&from=mail']);
    assert.equal(pages[0]!.headers.referer, undefined, 'the tracked address is not passed on as the referrer');

    const events = await waitFor(async () => {
      const detail = (await (await fetch(`${serve.base}/v1/messages/${messageId}`, { headers: { 'x-api-key': ws.apiKey } })).json()) as {
        data: { recipients: { events: { type: string; engagement?: { machine: boolean; user_agent: string; url?: string } }[] }[] };
      };
      const engaged = detail.data.recipients[0]!.events.filter((e) => e.engagement);
      return engaged.length === 2 ? engaged : undefined;
    }, 'the open and the click recorded');
    assert.deepEqual(events.map((e) => [e.type, e.engagement!.machine, e.engagement!.user_agent]), [['opened', false, READER], ['clicked', false, READER]]);
    assert.equal(events[1]!.engagement!.url, landingUrl);
  });
});
