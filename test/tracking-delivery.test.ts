/**
 * Open and click tracking through `mailroom serve` as users run it (API and worker) and a real SMTP
 * server (issue 57): a tracked send reaches the relay with each recipient's own tracked links and
 * pixel, DKIM-signed after the rewrite; the pixel and the links answer as docs/tracking.md says; and
 * each open and click becomes an event of the message, a webhook to endpoints that name it, and a
 * count of /v1/send/stats/engagement, machines kept apart.
 */
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, it } from 'node:test';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { simpleParser } from 'mailparser';
import { smtpWorkspace, type SmtpWorkspace } from './helpers/delivery-rig.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { freePort } from './helpers/free-port.js';
import { showServeOutputOfFailedTests, startServe, type ServeProcess } from './helpers/serve-process.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { migratedStore, type FreshStore } from './helpers/test-store.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';
import { waitFor } from './helpers/wait-for.js';

const DOMAIN = 'tracking.example';
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
const HTML = `<!doctype html><html><body>
<p>Hello, <a href="https://shop.example/orders/1?ref=mail&amp;x=1">your order</a> has shipped.</p>
<p><a href='https://help.example/faq'>Questions?</a> <a href="mailto:help@shop.example">Mail us</a>
<a href="https://shop.example/account" data-mailroom-no-track>Account</a>
<a href="https://shop.example/unsubscribe/abc">Unsubscribe</a></p>
</body></html>`;

interface Detail {
  recipients: { to: string; events: { type: string; status: string; detail: string | null; engagement?: Record<string, unknown> }[] }[];
}

describe('tracked mail through serve and a real relay', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let ws: SmtpWorkspace;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  let serve: ServeProcess;
  let chosen: WebhookReceiver;
  let plain: WebhookReceiver;
  let messageId: string;
  const copies = new Map<string, { raw: string; html: string; text: string }>();

  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${serve.base}${path}`, { ...init, headers: { 'x-api-key': ws.apiKey, 'content-type': 'application/json', ...init.headers } });
    return { status: res.status, body: (await res.json()) as { data: unknown } };
  };
  const detail = async () => (await api(`/v1/messages/${messageId}`)).body.data as Detail;
  const eventsOf = async (email: string, type: string) => (await detail()).recipients.find((r) => r.to === email)!.events.filter((e) => e.type === type);
  const waitForEvents = (email: string, type: string, count = 1) =>
    waitFor(async () => {
      const events = await eventsOf(email, type);
      return events.length >= count ? events : undefined;
    }, `${count} ${type} of ${email}`);
  const linksIn = (html: string) => [...html.matchAll(/href="([^"]*)"|href='([^']*)'/g)].map((m) => m[1] ?? m[2]!);
  const trackedIn = (html: string) => linksIn(html).filter((l) => l.includes('/t/c/'));
  const pixelIn = (html: string) => /<img src="([^"]*\/t\/o\/[^"]*)" alt="" width="1" height="1" style="display:none">/.exec(html)?.[1];

  before(async () => {
    store = await migratedStore();
    ws = await smtpWorkspace(store.env, DOMAIN);
    [sink, dns, chosen, plain] = await Promise.all([startSmtpSink(), startDnsServer(), startWebhookReceiver(), startWebhookReceiver()]);
    const row = await ws.db.selectFrom('domains').select(['dkim_selector', 'dkim_public_key']).where('domain', '=', DOMAIN).executeTakeFirstOrThrow();
    dns.setTxt(`${row.dkim_selector}._domainkey.${DOMAIN}`, [`v=DKIM1; k=rsa; p=${row.dkim_public_key}`]);
    const port = await freePort();
    serve = await startServe({
      ...store.env,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      MAILROOM_PROVIDER: 'smtp',
      SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // The test reads the message often while it waits for its events.
      RATE_LIMIT_OTHER_PER_MIN: '100000',
    });
    for (const [receiver, events] of [[chosen, ['delivered', 'opened', 'clicked']], [plain, undefined]] as const) {
      const made = await api('/v1/webhooks', { method: 'POST', body: JSON.stringify({ url: receiver.url, ...(events ? { events } : {}) }) });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    }
    const sent = await api('/v1/send', {
      method: 'POST',
      body: JSON.stringify({
        from_email: ws.from, to: ['ada@example.net', 'grace@example.net'], subject: 'Your order has shipped', html: HTML,
        headers: { 'List-Unsubscribe': '<https://shop.example/unsubscribe/abc>, <mailto:unsubscribe@shop.example>' },
        track_opens: true, track_clicks: true,
      }),
    });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    messageId = (sent.body.data as { message_id: string }).message_id;
    await waitFor(() => sink.received.length === 2, 'both copies at the relay');
    // The relay has the copies before the worker records their hand-overs, which the click rules read.
    await waitFor(async () => (await ws.db.selectFrom('delivery_attempts').select('id').where('message_id', '=', messageId).where('outcome', '=', 'accepted').execute()).length === 2, 'the hand-overs recorded');
    for (const received of sink.received) {
      const parsed = await simpleParser(received.raw);
      copies.set(received.envelope.rcptTo[0]!.address, { raw: received.raw, html: String(parsed.html), text: parsed.text ?? '' });
    }
  });

  after(async () => {
    await serve?.stop();
    await Promise.all([sink?.close(), dns?.close(), chosen?.close(), plain?.close()]);
    await ws?.db.destroy();
    await store?.drop();
  });

  it("rewrites each recipient's http(s) links and adds a pixel of its own, leaving the rest and the text part as they were", () => {
    const ada = copies.get('ada@example.net')!;
    const grace = copies.get('grace@example.net')!;
    for (const copy of [ada, grace]) {
      assert.deepEqual(
        linksIn(copy.html).filter((l) => !l.includes('/t/c/')),
        ['mailto:help@shop.example', 'https://shop.example/account', 'https://shop.example/unsubscribe/abc'],
      );
      assert.equal(trackedIn(copy.html).length, 2);
      assert.ok(trackedIn(copy.html).every((l) => l.startsWith(`${serve.base}/t/c/`)), copy.html);
      assert.ok(pixelIn(copy.html)?.startsWith(`${serve.base}/t/o/`), copy.html);
      assert.ok(copy.text.includes('https://shop.example/orders/1?ref=mail&x=1'), copy.text);
      assert.ok(!copy.text.includes('/t/c/'), 'the text part keeps its links');
    }
    assert.notDeepEqual(trackedIn(ada.html), trackedIn(grace.html), 'tracked addresses are per recipient');
    assert.notEqual(pixelIn(ada.html), pixelIn(grace.html));
  });

  it('signs each copy after the rewrite: an independent DKIM verifier passes both', async () => {
    const resolver = new Resolver();
    resolver.setServers([dns.address]);
    const resolve = (name: string, type: string) => resolver.resolve(name, type as 'TXT');
    for (const copy of copies.values()) {
      const { results } = await dkimVerify(Buffer.from(copy.raw), { resolver: resolve as never });
      assert.equal((results[0] as { status: { result: string } }).status.result, 'pass');
    }
  });

  it('answers the pixel with the GIF, never cached, for a good token and a forged one alike', async () => {
    const good = pixelIn(copies.get('ada@example.net')!.html)!;
    const forged = good.slice(0, -3) + (good.endsWith('AAA') ? 'BBB' : 'AAA');
    for (const url of [good, forged, `${serve.base}/t/o/nonsense`]) {
      const res = await fetch(url, { headers: { 'user-agent': BROWSER } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'image/gif');
      assert.equal(res.headers.get('cache-control'), 'no-store, max-age=0');
      assert.equal(Buffer.from(await res.arrayBuffer()).subarray(0, 6).toString(), 'GIF89a');
    }
    const [open] = await waitForEvents('ada@example.net', 'opened');
    assert.deepEqual(open!.engagement, { user_agent: BROWSER, ip: '127.0.0.0', machine: false, proxy: false, machine_rule: null });
    assert.equal((await eventsOf('ada@example.net', 'opened')).length, 1, 'forged tokens record nothing');
  });

  it("keeps Apple Mail Privacy Protection's prefetch apart as a machine's open", async () => {
    const res = await fetch(pixelIn(copies.get('grace@example.net')!.html)!, { headers: { 'user-agent': 'Mozilla/5.0' } });
    assert.equal(res.status, 200);
    const [open] = await waitForEvents('grace@example.net', 'opened');
    assert.equal(open!.engagement!.machine, true);
    assert.equal(open!.engagement!.machine_rule, 'apple-mpp');
  });

  it('redirects a tracked link to the stored URL; an altered or unknown token answers 404 and goes nowhere', async () => {
    const [first] = trackedIn(copies.get('ada@example.net')!.html);
    const res = await fetch(first!, { redirect: 'manual', headers: { 'user-agent': BROWSER } });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), 'https://shop.example/orders/1?ref=mail&x=1');
    assert.equal(res.headers.get('cache-control'), 'no-store, max-age=0');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');

    const token = first!.slice(first!.lastIndexOf('/') + 1);
    const [ulid, recipient, , tag] = token.split('.');
    const altered = [
      `${ulid}.${recipient}.3.${tag}`, // another link number under the same tag
      `${ulid}.${recipient}.1.${tag!.slice(0, -1)}${tag!.endsWith('A') ? 'B' : 'A'}`,
      'https%3A%2F%2Fevil.example',
    ];
    for (const bad of altered) {
      const answer = await fetch(`${serve.base}/t/c/${bad}?url=https://evil.example`, { redirect: 'manual' });
      assert.equal(answer.status, 404, bad);
      assert.equal(answer.headers.get('location'), null);
      assert.match(answer.headers.get('content-type')!, /^text\/plain/);
      assert.match(await answer.text(), /not valid/);
    }
  });

  it("records the click, a scanner's within five seconds of delivery as a machine's", async () => {
    const [click] = await waitForEvents('ada@example.net', 'clicked');
    assert.equal(click!.detail, 'https://shop.example/orders/1?ref=mail&x=1');
    assert.equal(click!.engagement!.url, 'https://shop.example/orders/1?ref=mail&x=1');
    // Clicked at once after the hand-over: what a link scanner does, not a reader.
    assert.equal(click!.engagement!.machine, true);
    assert.equal(click!.engagement!.machine_rule, 'soon-after-delivery');

    // A minute after delivery, the same link from a browser is a person's click.
    await ws.db.updateTable('delivery_attempts').set({ created_at: new Date(Date.now() - 60_000).toISOString() }).where('message_id', '=', messageId).execute();
    const [first] = trackedIn(copies.get('ada@example.net')!.html);
    assert.equal((await fetch(first!, { redirect: 'manual', headers: { 'user-agent': BROWSER } })).status, 302);
    const clicks = await waitForEvents('ada@example.net', 'clicked', 2);
    assert.deepEqual(clicks[1]!.engagement, { url: 'https://shop.example/orders/1?ref=mail&x=1', user_agent: BROWSER, ip: '127.0.0.0', machine: false, machine_rule: null });
  });

  it('counts them in /v1/send/stats/engagement, and the tracked recipients they are rates of', async () => {
    const stats = await waitFor(async () => {
      const answer = (await api('/v1/send/stats/engagement')).body.data as Record<string, number>;
      return answer.clicked === 1 ? answer : undefined;
    }, 'the counts');
    assert.deepEqual(stats, { opened: 1, unique_opened: 1, clicked: 1, unique_clicked: 1, machine_opened: 1, machine_clicked: 1, tracked_opens: 2, tracked_clicks: 2 });
    const series = (await api('/v1/send/stats/engagement/timeseries?interval=hour')).body.data as Record<string, number>[];
    assert.equal(series.length, 24);
    assert.equal(series.reduce((sum, b) => sum + b.opened!, 0), 1);
  });

  it('posts opened and clicked only to the endpoint that named them', async () => {
    const types = (receiver: WebhookReceiver) => receiver.received.map((h) => (JSON.parse(h.body) as { event: string }).event);
    await waitFor(() => types(chosen).filter((t) => t === 'clicked').length === 2 && types(chosen).filter((t) => t === 'opened').length === 2, () => `opens and clicks posted: ${types(chosen)}`);
    const click = chosen.received.map((h) => JSON.parse(h.body) as Record<string, unknown>).find((p) => p.event === 'clicked' && p.machine === false)!;
    assert.equal(click.url, 'https://shop.example/orders/1?ref=mail&x=1');
    assert.equal(click.message_id, messageId);
    assert.equal(click.to, 'ada@example.net');
    // Fanned out in the same transactions as the chosen endpoint's deliveries: none were made for the default one.
    assert.ok(types(plain).every((t) => !['opened', 'clicked'].includes(t)), `the default endpoint got ${types(plain)}`);
    const made = await ws.db.selectFrom('webhook_deliveries').select(['event_type']).where('event_type', 'in', ['opened', 'clicked']).execute();
    assert.equal(made.length, 4);
  });
});
