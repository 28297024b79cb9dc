import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, sendBody, writtenRows, type TestApp } from './helpers/test-app.js';

const many = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`);

describe('POST /v1/send: cc, bcc, reply_to lists, headers, generated text (sandbox provider)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000' });
  });
  after(() => t.close());

  const accept = async (overrides: Record<string, unknown>) => {
    const res = await t.call('POST', '/v1/send', { body: sendBody(overrides) });
    assert.equal(res.statusCode, 200, res.body);
    const id = res.json().data.message_id as string;
    const message = await t.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const entries = await t.db.selectFrom('log_entries').selectAll().where('message_id', '=', id).execute();
    return { id, message, entries };
  };

  it('writes a send entry for every to, cc and bcc recipient, each address once (first field wins)', async () => {
    const { message, entries } = await accept({
      to: ['a@example.com', 'B <b@example.com>'],
      cc: ['Carol <c@example.com>', 'A@EXAMPLE.COM'],
      bcc: ['d@example.com', 'c@example.com'],
    });
    assert.deepEqual(entries.map((e) => [e.type, e.status, e.recipient]).sort(), [
      ['send', 'sent', 'a@example.com'],
      ['send', 'sent', 'b@example.com'],
      ['send', 'sent', 'c@example.com'],
      ['send', 'sent', 'd@example.com'],
    ]);
    assert.deepEqual(JSON.parse(message.cc!), [{ name: 'Carol', address: 'c@example.com' }]);
    assert.deepEqual(JSON.parse(message.bcc!), [{ name: '', address: 'd@example.com' }]);
  });

  it('keeps every reply_to address, a string or an array', async () => {
    const { message } = await accept({ reply_to: ['Help <help@example.com>', 'ops@example.com'] });
    assert.deepEqual(JSON.parse(message.reply_to!), [{ name: 'Help', address: 'help@example.com' }, { name: '', address: 'ops@example.com' }]);
  });

  it('sends an internationalised domain in its ASCII (punycode) form', async () => {
    const { entries } = await accept({ to: ['Jörg <joerg@bücher.example>'], cc: ['info@münchen.example'] });
    assert.deepEqual(entries.map((e) => e.recipient).sort(), ['info@xn--mnchen-3ya.example', 'joerg@xn--bcher-kva.example']);
  });

  it('takes a non-ASCII local part on the sandbox, which delivers it (SMTPUTF8)', async () => {
    const { entries } = await accept({ to: ['jörg@example.com'] });
    assert.deepEqual(entries.map((e) => e.recipient), ['jörg@example.com']);
  });

  it('keeps the custom headers in request order, and `text: ""` as the opt-out from a generated text part', async () => {
    const { message } = await accept({ headers: { 'X-Entity-Ref-ID': '42', 'List-Unsubscribe': '<mailto:u@example.com>' }, html: '<p>Hi</p>', text: '' });
    assert.deepEqual(JSON.parse(message.headers!), [['X-Entity-Ref-ID', '42'], ['List-Unsubscribe', '<mailto:u@example.com>']]);
    assert.equal(message.text, '');
  });

  const fiftyHeaders = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-H${i}`, 'v']));
  const invalid: [string, Record<string, unknown>, string][] = [
    ['to, cc and bcc over 50 together', sendBody({ to: many('t', 20), cc: many('c', 20), bcc: many('b', 11) }), 'to, cc and bcc must contain at most 50 recipients together (got 51)'],
    ['an invalid cc', sendBody({ cc: ['nobody'] }), 'cc[0] must be a valid email address, optionally as Name <address> (got "nobody")'],
    ['an invalid bcc', sendBody({ bcc: ['ok@example.com', 'a b@example.com'] }), 'bcc[1] must be a valid email address, optionally as Name <address> (got "a b@example.com")'],
    ['a line break in a cc', sendBody({ cc: ['a@example.com\r\nBcc: x@example.com'] }), 'cc[0] must not contain line breaks or control characters'],
    ['cc not an array', sendBody({ cc: 'a@example.com' }), 'cc must be an array'],
    ['more than 50 reply_to', sendBody({ reply_to: many('r', 51) }), 'reply_to must contain at most 50 addresses (got 51)'],
    ['an invalid reply_to in a list', sendBody({ reply_to: ['ok@example.com', 'nope'] }), 'reply_to[1] must be a valid email address, optionally as Name <address> (got "nope")'],
    ['more than 50 headers', sendBody({ headers: fiftyHeaders }), 'headers must contain at most 50 headers (got 51)'],
    ['a header name with a space', sendBody({ headers: { 'X Bad': '1' } }), 'headers: "X Bad" is not a valid header name (printable ASCII without spaces or colons)'],
    ['a header name with a colon', sendBody({ headers: { 'X-A:': '1' } }), 'headers: "X-A:" is not a valid header name (printable ASCII without spaces or colons)'],
    ['an owned header (Bcc)', sendBody({ headers: { bcc: 'x@example.com' } }), 'headers: bcc is set by Mailroom and cannot be given'],
    ['an owned header (Content-*)', sendBody({ headers: { 'Content-Disposition': 'inline' } }), 'headers: Content-Disposition is set by Mailroom and cannot be given'],
    ['an owned header (DKIM-Signature)', sendBody({ headers: { 'DKIM-Signature': 'v=1' } }), 'headers: DKIM-Signature is set by Mailroom and cannot be given'],
    ['a header given twice', sendBody({ headers: { 'X-A': '1', 'x-a': '2' } }), 'headers: x-a is given twice (header names are case-insensitive)'],
    ['CR/LF in a header value', sendBody({ headers: { 'X-A': '1\r\nBcc: x@example.com' } }), 'headers: X-A must not contain line breaks or control characters'],
    ['a header value not a string', sendBody({ headers: { 'X-A': 1 } }), 'headers.X-A must be a string'],
    ['text "" alone', sendBody({ text: '' }), 'html or text is required: give at least one of them'],
    ['a misspelt field', sendBody({ header: { 'X-A': '1' } }), 'header is not a supported field'],
  ];
  for (const [name, body, error] of invalid) {
    it(`refuses ${name} with 400 and writes nothing`, async () => {
      const before = await writtenRows(t.db);
      const res = await t.call('POST', '/v1/send', { body });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { success: false, error });
      assert.deepEqual(await writtenRows(t.db), before);
    });
  }
});

describe('POST /v1/send with the smtp provider: non-ASCII local parts', () => {
  let t: TestApp;
  before(async () => {
    // Nothing is delivered here (no worker): only acceptance's rule is under test.
    t = await createTestApp({ MAILROOM_PROVIDER: 'smtp', SMTP_URL: 'smtp://127.0.0.1:9', RATE_LIMIT_SEND_PER_MIN: '100000' });
  });
  after(() => t.close());

  it('refuses a non-ASCII local part with 400: the relay may not support SMTPUTF8', async () => {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ bcc: ['jörg@example.com'] }) });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), {
      success: false,
      error: 'bcc[0] has a non-ASCII local part ("jörg@example.com"), which needs SMTPUTF8: the configured provider cannot send it',
    });
  });
});
