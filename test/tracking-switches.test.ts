/**
 * Which mail is tracked, and how the tracked addresses answer (docs/tracking.md): the domain's switches
 * and the send's own choice, settled at acceptance; the copy the worker builds (kept by the sandbox);
 * HEAD and user-agent-less requests as machines; the per-network limit; content that expired.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { addVerifiedDomain } from './helpers/verified-domain.js';
import { waitFor } from './helpers/wait-for.js';

const DOMAIN = 'news.switches.example';
const HTML = '<html><body><p>Read <a href="https://switches.example/post/7">the post</a>.</p></body></html>';
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

describe('tracking switches and tracked addresses', () => {
  let t: TestApp;
  let dns: TestDnsServer;

  before(async () => {
    dns = await startDnsServer();
    t = await createTestApp({ DNS_SERVERS: dns.address, PUBLIC_URL: 'https://mail.switches.example', RATE_LIMIT_OTHER_PER_MIN: '100000' }, { worker: true });
    const { id } = await addVerifiedDomain(t, dns, DOMAIN);
    await t.db.updateTable('domains').set({ open_tracking: 1, click_tracking: 1 }).where('id', '=', id).execute();
  });
  after(async () => {
    await t?.close();
    await dns?.close();
  });

  /** Sends, waits for the worker's copy in the sandbox, and answers the message's id, its stored switches and the HTML sent. */
  async function sent(overrides: Record<string, unknown>) {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ from_email: `News <news@${DOMAIN}>`, html: HTML, text: 'Read the post', ...overrides }) });
    assert.equal(res.statusCode, 200, res.body);
    const id = res.json().data.message_id as string;
    const kept = await waitFor(() => t.db.selectFrom('sandbox_messages').select('raw').where('message_id', '=', id).executeTakeFirst(), 'the copy kept');
    const stored = await t.db.selectFrom('messages').select(['track_opens', 'track_clicks']).where('id', '=', id).executeTakeFirstOrThrow();
    return { id, stored, html: String((await simpleParser(kept.raw)).html) };
  }
  const pixelOf = (html: string) => /src="(https:\/\/mail\.switches\.example\/t\/o\/[^"]+)"/.exec(html)?.[1];
  const linkOf = (html: string) => /href="(https:\/\/mail\.switches\.example\/t\/c\/[^"]+)"/.exec(html)?.[1];
  const pathOf = (url: string) => new URL(url).pathname;
  const eventsOf = async (id: string, type: string) =>
    ((await t.call('GET', `/v1/messages/${id}`)).json().data.recipients[0].events as { type: string; engagement?: Record<string, unknown> }[]).filter((e) => e.type === type);

  it("tracks what the domain's switches say when the send says nothing", async () => {
    const { stored, html } = await sent({});
    assert.deepEqual(stored, { track_opens: 1, track_clicks: 1 });
    assert.ok(pixelOf(html) && linkOf(html), html);
  });

  it("lets the send override each switch: opens off, clicks still on; both off sends the HTML as written", async () => {
    const opensOff = await sent({ track_opens: false });
    assert.deepEqual(opensOff.stored, { track_opens: 0, track_clicks: 1 });
    assert.equal(pixelOf(opensOff.html), undefined);
    assert.ok(linkOf(opensOff.html));
    const off = await sent({ track_opens: false, track_clicks: false });
    assert.deepEqual(off.stored, { track_opens: 0, track_clicks: 0 });
    assert.ok(off.html.includes('href="https://switches.example/post/7"') && !off.html.includes('/t/'), off.html);
  });

  it('tracks nothing from a domain whose switches are off unless the send asks', async () => {
    const plain = await t.call('POST', '/v1/send', { body: sendBody({ html: HTML }) });
    const id = plain.json().data.message_id as string;
    assert.deepEqual(await t.db.selectFrom('messages').select(['track_opens', 'track_clicks']).where('id', '=', id).executeTakeFirstOrThrow(), { track_opens: 0, track_clicks: 0 });
    const asked = await t.call('POST', '/v1/send', { body: sendBody({ html: HTML, track_opens: true }) });
    const askedId = asked.json().data.message_id as string;
    assert.deepEqual(await t.db.selectFrom('messages').select(['track_opens', 'track_clicks']).where('id', '=', askedId).executeTakeFirstOrThrow(), { track_opens: 1, track_clicks: 0 });
  });

  it('refuses a switch that is not a boolean, naming it', async () => {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ html: HTML, track_clicks: 'yes' }) });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().error, /track_clicks/);
  });

  it('counts a HEAD request and a request without a user agent as machines', async () => {
    const { id, html } = await sent({});
    assert.equal((await t.app.inject({ method: 'HEAD', url: pathOf(pixelOf(html)!), headers: { 'user-agent': BROWSER } })).statusCode, 200);
    // light-my-request sends a user agent of its own unless told: a blank one is what "none" reaches the rule as.
    assert.equal((await t.app.inject({ method: 'GET', url: pathOf(pixelOf(html)!), headers: { 'user-agent': '' } })).statusCode, 200);
    const opens = await waitFor(async () => {
      const found = await eventsOf(id, 'opened');
      return found.length === 2 ? found : undefined;
    }, 'both opens recorded');
    assert.deepEqual(opens.map((o) => [o.engagement!.machine, o.engagement!.machine_rule]), [[true, 'head-request'], [true, 'no-user-agent']]);
  });

  it("answers a pixel's token at the click address, and a link's at the pixel's, as the wrong kind", async () => {
    const { id, html } = await sent({});
    const pixelToken = pathOf(pixelOf(html)!).slice('/t/o/'.length);
    const linkToken = pathOf(linkOf(html)!).slice('/t/c/'.length);
    assert.equal((await t.app.inject({ method: 'GET', url: `/t/c/${pixelToken}`, headers: { 'user-agent': BROWSER } })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: `/t/o/${linkToken}`, headers: { 'user-agent': BROWSER } })).statusCode, 200);
    await t.services.tracking.recorder.flush();
    assert.deepEqual(await eventsOf(id, 'opened'), []);
    assert.deepEqual(await eventsOf(id, 'clicked'), []);
  });

  it('stops leading anywhere once the content expired, and records nothing more', async () => {
    const { id, html } = await sent({});
    await t.db.updateTable('messages').set({ html: null, text: null, content_expired_at: new Date().toISOString() }).where('id', '=', id).execute();
    const click = await t.app.inject({ method: 'GET', url: pathOf(linkOf(html)!), headers: { 'user-agent': BROWSER } });
    assert.equal(click.statusCode, 404);
    assert.equal(click.headers.location, undefined);
    assert.equal((await t.app.inject({ method: 'GET', url: pathOf(pixelOf(html)!), headers: { 'user-agent': BROWSER } })).statusCode, 200);
    await t.services.tracking.recorder.flush();
    assert.deepEqual(await eventsOf(id, 'opened'), []);
  });
});

describe('the per-network limit of tracked addresses', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ PUBLIC_URL: 'https://mail.limit.example', RATE_LIMIT_TRACKING_PER_MIN: '3', RATE_LIMIT_OTHER_PER_MIN: '100000' }, { worker: true });
  });
  after(async () => t?.close());

  it('answers opens over the limit without recording them, and clicks over it with 429', async () => {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ html: HTML, track_opens: true, track_clicks: true }) });
    const id = res.json().data.message_id as string;
    const kept = await waitFor(() => t.db.selectFrom('sandbox_messages').select('raw').where('message_id', '=', id).executeTakeFirst(), 'the copy kept');
    const html = String((await simpleParser(kept.raw)).html);
    const pixel = new URL(/src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1]!).pathname;
    const link = new URL(/href="([^"]+\/t\/c\/[^"]+)"/.exec(html)![1]!).pathname;
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await t.app.inject({ method: 'GET', url: pixel, headers: { 'user-agent': BROWSER } })).statusCode);
    assert.deepEqual(answers, [200, 200, 200, 200]);
    const click = await t.app.inject({ method: 'GET', url: link, headers: { 'user-agent': BROWSER } });
    assert.equal(click.statusCode, 429);
    assert.ok(Number(click.headers['retry-after']) >= 1);
    await t.services.tracking.recorder.flush();
    const events = (await t.call('GET', `/v1/messages/${id}`)).json().data.recipients[0].events as { type: string }[];
    assert.equal(events.filter((e) => e.type === 'opened').length, 3);
    assert.equal(events.filter((e) => e.type === 'clicked').length, 0);
  });
});
