import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { simpleParser, type AddressObject } from 'mailparser';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { headerOf, startSmtpSink, type ReceivedMessage, type SmtpSink } from './helpers/smtp-sink.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { addVerifiedDomain, verifyDkim } from './helpers/verified-domain.js';
import { waitFor } from './helpers/wait-for.js';

const DOMAIN = 'mail.acme.example';
const FAST = { DELIVERY_RETRY_BASE_MS: '20', DELIVERY_MAX_ATTEMPTS: '5', WORKER_POLL_MS: '20', RATE_LIMIT_SEND_PER_MIN: '100000' };

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const addresses = (field: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((a) => a.value.map((v) => v.address));

describe('send extensions (attachments too) through a real SMTP relay on loopback', () => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let t: TestApp;

  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
    t = await createTestApp({ MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${sink.port}`, DNS_SERVERS: dns.address, ...FAST }, { worker: true });
    await addVerifiedDomain(t, dns, DOMAIN);
  });
  after(async () => {
    await t.close();
    await sink.close();
    await dns.close();
  });

  /** Sends, waits for the job, and answers each transaction the relay took for this message, by recipient. */
  async function deliver(body: Record<string, unknown>): Promise<{ id: string; copies: Map<string, ReceivedMessage> }> {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ from_email: `Acme <hello@${DOMAIN}>`, ...body }) });
    assert.equal(res.json().data?.status, 'sent', res.body);
    const id = res.json().data.message_id as string;
    await waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', `the job of ${id} to finish`);
    const mine = sink.received.filter((m) => (m.envelope.mailFrom as { address: string }).address.includes(id));
    return { id, copies: new Map(mine.map((m) => [m.envelope.rcptTo.map((r) => r.address).join(), m])) };
  }

  it('sends To, Cc and Bcc each in a transaction of its own; Bcc in no header; custom headers kept; DKIM verifies', async () => {
    const { id, copies } = await deliver({
      to: ['Ada <ada@example.com>'],
      cc: ['Carol <carol@example.com>', 'ada@example.com'],
      bcc: ['dave@example.com'],
      reply_to: ['help@acme.example', 'Ops <ops@acme.example>'],
      headers: { 'X-Entity-Ref-ID': 'order-42', 'List-Unsubscribe': '<mailto:unsubscribe@acme.example>' },
      text: 'Hello',
    });
    assert.deepEqual([...copies.keys()].sort(), ['ada@example.com', 'carol@example.com', 'dave@example.com'], 'ada once, though in to and cc');
    // Each return path speaks for its own recipient: To, then Cc, then Bcc.
    for (const [index, to] of ['ada@example.com', 'carol@example.com', 'dave@example.com'].entries()) {
      const mailFrom = (copies.get(to)!.envelope.mailFrom as { address: string }).address;
      assert.deepEqual(t.returnPaths.verify(mailFrom), { ok: true, messageId: id, recipientIndex: index });
      assert.equal((await t.store.logs.findSendEntry(id, to))?.type, 'send');
    }
    const raw = copies.get('dave@example.com')!.raw;
    assert.equal(raw, copies.get('ada@example.com')!.raw, 'the Bcc recipient gets the very message the others get');
    assert.equal(headerOf(raw, 'Bcc'), undefined);
    assert.ok(!raw.includes('dave@'), 'the Bcc address is nowhere in the message');

    const parsed = await simpleParser(raw);
    assert.deepEqual(addresses(parsed.to), ['ada@example.com']);
    assert.deepEqual(addresses(parsed.cc), ['carol@example.com']);
    assert.deepEqual(addresses(parsed.replyTo), ['help@acme.example', 'ops@acme.example']);
    assert.equal(parsed.bcc, undefined);
    assert.equal(parsed.headers.get('x-entity-ref-id'), 'order-42');
    assert.equal(headerOf(raw, 'List-Unsubscribe'), '<mailto:unsubscribe@acme.example>');

    const [dkim] = await verifyDkim(raw, dns);
    assert.equal(dkim?.status.result, 'pass', 'mailauth verifies the signature against the published record');

    const detail = (await t.call('GET', `/v1/messages/${id}`)).json().data;
    assert.deepEqual([detail.cc, detail.bcc, detail.reply_to], [['Carol <carol@example.com>'], ['dave@example.com'], 'help@acme.example, Ops <ops@acme.example>']);
    assert.deepEqual(detail.recipients.map((r: { to: string }) => r.to), ['ada@example.com', 'carol@example.com', 'dave@example.com']);
  });

  it('generates a text part for an HTML-only send, and leaves it out on `text: ""`', async () => {
    const html = '<h1>Your order</h1><p>Hello <b>Ada</b>, see <a href="https://acme.example/o/42">your order</a>.</p>';
    const generated = await simpleParser(await deliver({ html, text: null }).then(({ copies }) => copies.get('user@example.com')!.raw));
    assert.equal(generated.html, html);
    assert.match(generated.text!, /YOUR ORDER/);
    assert.match(generated.text!, /Hello Ada, see your order \[https:\/\/acme\.example\/o\/42\]\./);

    const { copies } = await deliver({ html, text: '' });
    const raw = copies.get('user@example.com')!.raw;
    assert.match(headerOf(raw, 'Content-Type')!, /^text\/html/, 'no text part: not multipart/alternative');
    assert.equal((await verifyDkim(raw, dns))[0]?.status.result, 'pass');
  });

  it('sends an internationalised domain in ASCII, in the envelope and the headers', async () => {
    const { id, copies } = await deliver({ to: ['Jörg <joerg@bücher.example>'] });
    // The attempt records the RCPT TO Mailroom gave; smtp-server reports the domain decoded back to Unicode.
    assert.deepEqual((await t.store.deliveryAttempts.listForMessage(id)).map((a) => a.recipient), ['joerg@xn--bcher-kva.example']);
    const raw = copies.get('joerg@bücher.example')!.raw;
    assert.equal(headerOf(raw, 'To'), '=?UTF-8?Q?J=C3=B6rg?= <joerg@xn--bcher-kva.example>');
    assert.equal((await verifyDkim(raw, dns))[0]?.status.result, 'pass');
  });

  it('with SMTP_SMTPUTF8=true, takes a non-ASCII local part and hands it over with SMTPUTF8, the header in UTF-8 (RFC 6532)', async () => {
    // Another process on the same store, told that the relay takes SMTPUTF8 (smtp-server announces it); it sends for t's workspace.
    const utf8 = await createTestApp({ MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${sink.port}`, DNS_SERVERS: dns.address, SMTP_SMTPUTF8: 'true', ...FAST }, { worker: true, shareStoreWith: t });
    try {
      const res = await utf8.call('POST', '/v1/send', { key: t.apiKey, body: sendBody({ from_email: `Acme <hello@${DOMAIN}>`, to: ['Jörg <jörg@example.com>'] }) });
      assert.equal(res.json().data?.status, 'sent', res.body);
      const id = res.json().data.message_id as string;
      await waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', `the job of ${id} to finish`);
      const copy = sink.received.find((m) => (m.envelope.mailFrom as { address: string }).address.includes(id))!;
      assert.deepEqual(copy.envelope.rcptTo.map((r) => r.address), ['jörg@example.com']);
      assert.deepEqual((copy.envelope.mailFrom as { args: Record<string, string | boolean> }).args.SMTPUTF8, true, 'MAIL FROM asked for SMTPUTF8');
      assert.equal(headerOf(copy.raw, 'To'), '=?UTF-8?Q?J=C3=B6rg?= <jörg@example.com>');
      assert.equal((await verifyDkim(copy.raw, dns))[0]?.status.result, 'pass');
    } finally {
      await utf8.close();
    }
  });

  it('delivers attachments byte-identical, the inline one by Content-ID beside the HTML; Bcc in no header; DKIM verifies', async () => {
    const report = randomBytes(1_500_000);
    const logo = randomBytes(4_000);
    const empty = Buffer.alloc(0);
    const { id, copies } = await deliver({
      to: ['Ada <ada@example.com>'],
      bcc: ['dave@example.com'],
      subject: 'Your report',
      headers: { 'X-Entity-Ref-ID': 'report-7' },
      html: '<p>Here it is <img src="cid:logo@acme" alt="Acme"></p>',
      text: 'Here it is',
      attachments: [
        { filename: 'report.pdf', content: report.toString('base64') },
        { filename: 'logo.png', content: logo.toString('base64'), content_id: '<logo@acme>' },
        { filename: 'Übersicht 2026.csv', content: Buffer.from('a,b\r\n1,2\r\n').toString('base64'), content_type: 'text/csv' },
        { filename: 'empty.txt', content: empty.toString('base64') },
      ],
    });
    assert.deepEqual([...copies.keys()].sort(), ['ada@example.com', 'dave@example.com']);
    const raw = copies.get('ada@example.com')!.raw;
    assert.equal(copies.get('dave@example.com')!.raw, raw, 'the Bcc recipient gets the very same message');
    assert.equal(headerOf(raw, 'Bcc'), undefined);
    assert.ok(!raw.includes('dave@'), 'the Bcc address is nowhere in the message');

    // skipImageLinks: the HTML as sent, `cid:` references not replaced by data: URLs.
    const parsed = await simpleParser(raw, { skipImageLinks: true });
    assert.equal(parsed.subject, 'Your report');
    assert.deepEqual(addresses(parsed.from), [`hello@${DOMAIN}`]);
    assert.deepEqual(addresses(parsed.to), ['ada@example.com']);
    assert.equal(parsed.headers.get('x-entity-ref-id'), 'report-7');
    assert.equal(parsed.text?.trim(), 'Here it is');

    const byName = new Map(parsed.attachments.map((a) => [a.filename, a]));
    // The inline one sits in multipart/related with the HTML, so the parser lists it first.
    assert.deepEqual([...byName.keys()], ['logo.png', 'report.pdf', 'Übersicht 2026.csv', 'empty.txt']);
    assert.equal(sha256(byName.get('report.pdf')!.content), sha256(report));
    assert.equal(byName.get('report.pdf')!.contentType, 'application/pdf');
    assert.equal(byName.get('report.pdf')!.contentDisposition, 'attachment');
    assert.equal(sha256(byName.get('Übersicht 2026.csv')!.content), sha256(Buffer.from('a,b\r\n1,2\r\n')));
    assert.equal(byName.get('Übersicht 2026.csv')!.contentType, 'text/csv');
    assert.equal(byName.get('empty.txt')!.size, 0);

    // Inline: its Content-ID as given, in multipart/related with the HTML that names it.
    const inline = byName.get('logo.png')!;
    assert.equal(sha256(inline.content), sha256(logo));
    assert.equal(inline.contentId, '<logo@acme>');
    assert.equal(inline.cid, 'logo@acme');
    assert.equal(inline.contentDisposition, 'inline');
    assert.equal(inline.related, true, 'in multipart/related beside the HTML');
    assert.match(String(parsed.html), /src="cid:logo@acme"/);
    assert.match(raw, /Content-Type: multipart\/related/);

    const [dkim] = await verifyDkim(raw, dns);
    assert.equal(dkim?.status.result, 'pass', 'mailauth verifies the signature over the message with its attachments');

    const detail = (await t.call('GET', `/v1/messages/${id}`)).json().data;
    assert.deepEqual(detail.attachments, [
      { filename: 'report.pdf', content_type: 'application/pdf', content_id: null, size: 1_500_000 },
      { filename: 'logo.png', content_type: 'image/png', content_id: 'logo@acme', size: 4_000 },
      { filename: 'Übersicht 2026.csv', content_type: 'text/csv', content_id: null, size: 10 },
      { filename: 'empty.txt', content_type: 'text/plain', content_id: null, size: 0 },
    ]);
    assert.equal(detail.size_bytes, Buffer.byteLength(raw), 'the MIME as handed over is kept, attachments included');
  });

  it('delivers the attachments of batch items, each with its own message', async () => {
    const [a, b] = [randomBytes(20_000), randomBytes(30_000)];
    const res = await t.call('POST', '/v1/send/batch', {
      body: [
        sendBody({ from_email: `hello@${DOMAIN}`, to: ['one@example.com'], attachments: [{ filename: 'a.bin', content: a.toString('base64') }] }),
        sendBody({ from_email: `hello@${DOMAIN}`, to: ['two@example.com'], attachments: [{ filename: 'b.bin', content: b.toString('base64') }] }),
      ],
    });
    assert.equal(res.statusCode, 200, res.body);
    const ids = (res.json().data as { message_id: string }[]).map((r) => r.message_id);
    for (const [i, bytes] of [a, b].entries()) {
      const copy = await waitFor(() => sink.received.find((m) => (m.envelope.mailFrom as { address: string }).address.includes(ids[i]!)), `item ${i} at the relay`);
      const parsed = await simpleParser(copy.raw);
      assert.deepEqual(parsed.attachments.map((x) => [x.filename, sha256(x.content)]), [[`${'ab'[i]}.bin`, sha256(bytes)]]);
      assert.equal((await verifyDkim(copy.raw, dns))[0]?.status.result, 'pass');
    }
  });
});
