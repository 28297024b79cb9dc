/**
 * SMTP submission applies POST /v1/send's field rules to what the sender
 * wrote: Nodemailer submits raw messages to the real submission server, and
 * whatever the HTTP API refuses in a field is refused here with 550 5.6.0
 * naming the header or part, recording nothing; authentication and trace
 * headers are dropped from the message rather than refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { createTestApp, sendBody, writtenRows, type TestApp } from './helpers/test-app.js';

const FROM = 'hello@sandbox.mailroom.test';

/** A message as written: the headers given, a text body, and an attachment part when `part` is given. */
function message(headers: Record<string, string>, part?: string): string {
  const all = { From: FROM, To: 'ann@example.com', Subject: 'Hello', ...headers };
  const head = Object.entries(all).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  if (!part) return `${head}\r\nHello there\r\n`;
  return `${head}MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nHello there\r\n--b\r\n${part}\r\nContent-Transfer-Encoding: base64\r\n\r\naGVsbG8=\r\n--b--\r\n`;
}

describe('SMTP submission: the send rules of POST /v1/send', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000' }, { submission: true });
    port = t.submission!.port;
  });
  after(() => t.close());

  /** Submits `raw` as it is (Nodemailer's `raw`), over STARTTLS with AUTH: the reply's text. */
  async function submitRaw(raw: string, to: string[] = ['ann@example.com']): Promise<string> {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false }, auth: { user: 'mailroom', pass: t.apiKey } });
    try {
      return (await transport.sendMail({ envelope: { from: FROM, to }, raw })).response;
    } catch (error) {
      const response = (error as { response?: string }).response;
      assert.ok(response, `no SMTP reply: ${String(error)}`);
      return response;
    } finally {
      transport.close();
    }
  }
  const sentId = (response: string) => /^250 2\.0\.0 OK: queued as (msg_\S+)$/.exec(response)?.[1] ?? assert.fail(response);

  // What the sender wrote, the SMTP reply, and the same value given to POST /v1/send with the HTTP API's answer.
  const refused: [string, string, string, Record<string, unknown>, string][] = [
    [
      'an address as a bare display name',
      message({ From: `x@bank.example <${FROM}>` }),
      `From must be a valid email address, optionally as Name <address> (got "x@bank.example <${FROM}>")`,
      { from_email: `x@bank.example <${FROM}>` },
      `from_email must be a valid email address, optionally as Name <address> (got "x@bank.example <${FROM}>")`,
    ],
    [
      'markup in a bare display name',
      message({ From: `Acme <img src=x onerror=alert(1)> <${FROM}>` }),
      `From must be a valid email address, optionally as Name <address> (got "Acme <img src=x onerror=alert(1)> <${FROM}>")`,
      { from_email: `Acme <img src=x onerror=alert(1)> <${FROM}>` },
      `from_email must be a valid email address, optionally as Name <address> (got "Acme <img src=x onerror=alert(1)> <${FROM}>")`,
    ],
    [
      'a comment after the address',
      message({ From: `${FROM} (<img src=x onerror=alert(1)>)` }),
      `From must be a valid email address, optionally as Name <address> (got "${FROM} (<img src=x onerror=alert(1)>)")`,
      { from_email: `${FROM} (<img src=x onerror=alert(1)>)` },
      `from_email must be a valid email address, optionally as Name <address> (got "${FROM} (<img src=x onerror=alert(1)>)")`,
    ],
    [
      'text after a To address',
      message({ To: 'Ann <ann@example.com> and friends' }),
      'To must be a valid email address, optionally as Name <address> (got "Ann <ann@example.com> and friends")',
      { to: ['Ann <ann@example.com> and friends'] },
      'to[0] must be a valid email address, optionally as Name <address> (got "Ann <ann@example.com> and friends")',
    ],
    [
      'a line break in an encoded Cc name',
      message({ Cc: '=?utf-8?Q?Carol=0ABcc=3A_x=40evil.example?= <carol@example.com>' }),
      'Cc must not contain line breaks or control characters',
      { cc: ['Carol\nBcc: x@evil.example <carol@example.com>'] },
      'cc[0] must not contain line breaks or control characters',
    ],
    [
      'a control character in an encoded Reply-To name',
      message({ 'Reply-To': '=?utf-8?Q?Help=07Desk?= <help@example.com>' }),
      'Reply-To must not contain line breaks or control characters',
      { reply_to: 'Help\u0007Desk <help@example.com>' },
      'reply_to must not contain line breaks or control characters',
    ],
    [
      'a line break in an encoded subject',
      message({ Subject: '=?utf-8?Q?Hi=0D=0ABcc=3A_x=40evil.example?=' }),
      'Subject must not contain line breaks or control characters',
      { subject: 'Hi\r\nBcc: x@evil.example' },
      'subject must not contain line breaks or control characters',
    ],
    ['a subject over 998 characters', message({ Subject: 's'.repeat(999) }), 'Subject must be at most 998 characters long', { subject: 's'.repeat(999) }, 'subject must be at most 998 characters long'],
    [
      'markup and a line break in an attachment name',
      message({}, "Content-Type: application/pdf\r\nContent-Disposition: attachment; filename*=utf-8''%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E%0A.pdf"),
      "attachment 1's file name must not contain line breaks or control characters",
      { attachments: [{ filename: '<img src=x onerror=alert(1)>\n.pdf', content: 'aGVsbG8=' }] },
      'attachments[0].filename must not contain line breaks or control characters',
    ],
    [
      'an executable attachment',
      message({}, 'Content-Type: application/octet-stream; name="invoice.pdf.exe"\r\nContent-Disposition: attachment; filename="invoice.pdf.exe"'),
      "attachment 1's file name has a blocked file type (.exe): executables cannot be attached",
      { attachments: [{ filename: 'invoice.pdf.exe', content: 'aGVsbG8=' }] },
      'attachments[0].filename has a blocked file type (.exe): executables cannot be attached',
    ],
  ];

  for (const [what, raw, reply, field, httpError] of refused) {
    it(`refuses ${what} with 550 5.6.0 naming the header, as POST /v1/send refuses it, recording nothing`, async () => {
      const before = await writtenRows(t.db);
      assert.equal(await submitRaw(raw), `550 5.6.0 ${reply}`);
      assert.deepEqual(await writtenRows(t.db), before);
      const http = await t.call('POST', '/v1/send', { body: sendBody(field) });
      assert.deepEqual([http.statusCode, http.json()], [400, { success: false, error: httpError }]);
    });
  }

  it('refuses a From or To header given twice', async () => {
    assert.equal(await submitRaw(`From: ${FROM}\r\n${message({})}`), '550 5.6.0 From must be given once (the message has 2 From headers)');
    assert.equal(await submitRaw(`To: bob@example.com\r\n${message({})}`, ['ann@example.com', 'bob@example.com']), '550 5.6.0 To must be given once (the message has 2 To headers)');
  });

  it('takes what the HTTP API takes: quoted names with specials, RFC 2047 names, lists, folded lines', async () => {
    const raw = message({
      From: `"Acme, Inc. <billing>" <${FROM}>`,
      To: '=?UTF-8?Q?M=C3=BCller=2C_Hans?= <hans@example.com>,\r\n "Ann \\"A\\"" <ann@example.com>, bob@example.com',
      'Reply-To': 'Help <help@example.com>',
    });
    const id = sentId(await submitRaw(raw, ['hans@example.com', 'ann@example.com', 'bob@example.com']));
    const detail = (await t.call('GET', `/v1/messages/${id}`)).json().data;
    assert.equal(detail.from_email, FROM);
    const stored = await t.db.selectFrom('messages').select(['from_name', 'recipients', 'reply_to']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(stored.from_name, 'Acme, Inc. <billing>');
    assert.deepEqual(JSON.parse(stored.recipients), [
      { name: 'Müller, Hans', address: 'hans@example.com' },
      { name: 'Ann "A"', address: 'ann@example.com' },
      { name: '', address: 'bob@example.com' },
    ]);
    assert.deepEqual(JSON.parse(stored.reply_to!), [{ name: 'Help', address: 'help@example.com' }]);
    // The same sender, as the HTTP API takes it.
    const http = await t.call('POST', '/v1/send', { body: sendBody({ from_email: `"Acme, Inc. <billing>" <${FROM}>` }) });
    assert.equal(http.statusCode, 200, http.body);
  });

  it("drops a relayed message's authentication and trace headers, and X-Mailroom-*, keeping the others", async () => {
    const raw = message({
      'Return-Path': '<bounce@elsewhere.example>',
      Received: 'from app.internal (app.internal [10.0.0.5]) by relay.internal; Tue, 1 Dec 2026 10:00:00 +0000',
      'Received-SPF': 'pass (relay.internal: 10.0.0.5 is permitted)',
      'Authentication-Results': 'relay.internal; dkim=pass header.d=bank.example; spf=pass',
      'ARC-Seal': 'i=1; a=rsa-sha256; cv=none; d=relay.internal; s=arc; b=AAAA',
      'ARC-Message-Signature': 'i=1; a=rsa-sha256; d=relay.internal; s=arc; b=BBBB',
      'ARC-Authentication-Results': 'i=1; relay.internal; dkim=pass',
      'DKIM-Signature': 'v=1; a=rsa-sha256; d=relay.internal; s=s1; b=CCCC',
      'Delivered-To': 'ann@example.com',
      'X-Original-To': 'ann@example.com',
      'X-Mailroom-Id': 'msg_01forged',
      'X-Campaign': 'spring',
    });
    const id = sentId(await submitRaw(raw));
    const stored = await t.db.selectFrom('messages').select('headers').where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(stored.headers!), [['X-Campaign', 'spring']]);
  });
});
