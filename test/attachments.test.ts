import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestApp, sendBody, writtenRows, type TestApp } from './helpers/test-app.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const MiB = 1024 * 1024;
/** One attachment of `bytes` bytes, base64 (repeated zeros: cheap to make, exact in size). */
const sized = (bytes: number, filename = 'big.bin') => ({ filename, content: Buffer.alloc(bytes).toString('base64') });

describe('POST /v1/send: attachments (sandbox provider)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000' });
  });
  after(() => t.close());

  it('stores each attachment with its decoded bytes, its type (given or from the extension) and its Content-ID, in request order', async () => {
    const pdf = randomBytes(70_000);
    const logo = randomBytes(3_000);
    const res = await t.call('POST', '/v1/send', {
      body: sendBody({
        html: '<p>Hi <img src="cid:logo"></p>',
        attachments: [
          { filename: 'report.pdf', content: pdf.toString('base64') },
          { filename: 'logo.png', content: logo.toString('base64'), content_id: '<logo>' },
          // Wrapped at 76 columns, as the `base64` tool writes it.
          { filename: 'notes', content: Buffer.from('plain bytes').toString('base64').replace(/(.{4})/g, '$1\n'), content_type: 'text/plain; charset=utf-8' },
        ],
      }),
    });
    assert.equal(res.statusCode, 200, res.body);
    const id = res.json().data.message_id as string;
    const rows = await t.db.selectFrom('message_attachments').selectAll().where('message_id', '=', id).orderBy('position').execute();
    assert.deepEqual(
      rows.map((r) => [Number(r.position), r.filename, r.content_type, r.content_id, Number(r.size_bytes)]),
      [
        [0, 'report.pdf', 'application/pdf', null, 70_000],
        [1, 'logo.png', 'image/png', 'logo', 3_000],
        [2, 'notes', 'text/plain; charset=utf-8', null, 11],
      ],
    );
    assert.deepEqual(rows.map((r) => sha256(r.content)), [sha256(pdf), sha256(logo), sha256(Buffer.from('plain bytes'))]);

    const detail = (await t.call('GET', `/v1/messages/${id}`)).json().data;
    assert.deepEqual(detail.attachments, [
      { filename: 'report.pdf', content_type: 'application/pdf', content_id: null, size: 70_000 },
      { filename: 'logo.png', content_type: 'image/png', content_id: 'logo', size: 3_000 },
      { filename: 'notes', content_type: 'text/plain; charset=utf-8', content_id: null, size: 11 },
    ]);
    assert.ok(!JSON.stringify(detail).includes(pdf.toString('base64').slice(0, 40)), 'the detail never carries the bytes');
  });

  it('accepts docs/sending.md\'s example as written, inline image and all', async () => {
    const guide = readFileSync(join(import.meta.dirname, '..', 'docs', 'sending.md'), 'utf8');
    const section = guide.slice(guide.indexOf('## Attachments'), guide.indexOf('## Body limits'));
    const json = /-d '(\{[\s\S]*?"attachments"[\s\S]*?\})'/.exec(section)?.[1];
    assert.ok(json, 'the Attachments section has a curl example with attachments');
    const res = await t.call('POST', '/v1/send', { body: JSON.parse(json) });
    assert.equal(res.statusCode, 200, res.body);
    const detail = (await t.call('GET', `/v1/messages/${res.json().data.message_id}`)).json().data;
    assert.deepEqual(detail.attachments, [
      { filename: 'invoice.txt', content_type: 'text/plain', content_id: null, size: 18 },
      { filename: 'logo.gif', content_type: 'image/gif', content_id: 'logo', size: 43 },
    ]);
  });

  it('answers `attachments: []` for a message without any, and takes `attachments: null`', async () => {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ attachments: null }) });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual((await t.call('GET', `/v1/messages/${res.json().data.message_id}`)).json().data.attachments, []);
  });

  it('takes exactly 40 MB of attachments, in one request above the other routes’ 10 MiB body limit', async () => {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ attachments: [sized(20 * MiB, 'a.bin'), sized(20 * MiB, 'b.bin')] }) });
    assert.equal(res.statusCode, 200, res.body);
    const sizes = (await t.call('GET', `/v1/messages/${res.json().data.message_id}`)).json().data.attachments.map((a: { size: number }) => a.size);
    assert.deepEqual(sizes, [20 * MiB, 20 * MiB]);
  });

  it('keeps the 10 MiB body limit on other routes, with the envelope', async () => {
    const res = await t.call('POST', '/v1/suppressions', { body: { email: 'a@example.com', reason: 'x'.repeat(11 * MiB) } });
    assert.equal(res.statusCode, 413);
    assert.deepEqual(res.json(), { success: false, error: 'Request body is too large' });
  });

  it('answers 413 in the envelope for a send body over 70 MiB, and writes nothing', async () => {
    const before = await writtenRows(t.db);
    const res = await t.call('POST', '/v1/send', { body: sendBody({ html: 'x'.repeat(71 * MiB) }) });
    assert.equal(res.statusCode, 413);
    assert.deepEqual(res.json(), { success: false, error: 'Request body is too large' });
    assert.deepEqual(await writtenRows(t.db), before);
  });

  const png = Buffer.from('png bytes').toString('base64');
  const invalid: [string, Record<string, unknown>, string][] = [
    ['content outside the base64 alphabet', { attachments: [{ filename: 'a.txt', content: 'not base64!' }] }, 'attachments[0].content must be base64 (got a character outside the base64 alphabet)'],
    ['base64url content', { attachments: [{ filename: 'a.txt', content: 'ab-_' }] }, 'attachments[0].content must be base64 (got a character outside the base64 alphabet)'],
    ['padding in the middle', { attachments: [{ filename: 'a.txt', content: 'QQ==QUJD' }] }, 'attachments[0].content must be base64 (got "=" padding before the end)'],
    ['a length that is not whole bytes', { attachments: [{ filename: 'a.txt', content: 'QUJDR' }] }, 'attachments[0].content must be base64 (got a length that does not decode to whole bytes)'],
    ['padding that does not complete the group', { attachments: [{ filename: 'a.txt', content: 'QUJ==' }] }, 'attachments[0].content must be base64 (got a length that does not decode to whole bytes)'],
    ['a missing filename', { attachments: [{ filename: 'a.txt', content: png }, { content: png }] }, 'attachments[1].filename is required'],
    ['a missing content', { attachments: [{ filename: 'a.txt' }] }, 'attachments[0].content is required'],
    ['an empty filename', { attachments: [{ filename: ' ', content: png }] }, 'attachments[0].filename must not be empty'],
    ['a filename with a line break', { attachments: [{ filename: 'a\r\n.txt', content: png }] }, 'attachments[0].filename must not contain line breaks or control characters'],
    ['a filename over 255 characters', { attachments: [{ filename: `${'a'.repeat(252)}.txt`, content: png }] }, 'attachments[0].filename must be at most 255 characters long'],
    ['an .exe', { attachments: [{ filename: 'setup.exe', content: png }] }, 'attachments[0].filename has a blocked file type (.exe): executables cannot be attached'],
    ['a .BAT in capitals', { attachments: [{ filename: 'run.BAT', content: png }] }, 'attachments[0].filename has a blocked file type (.bat): executables cannot be attached'],
    ['a .js behind a trailing dot', { attachments: [{ filename: 'invoice.pdf.js.', content: png }] }, 'attachments[0].filename has a blocked file type (.js): executables cannot be attached'],
    ['a .vbs', { attachments: [{ filename: 'x.vbs', content: png }] }, 'attachments[0].filename has a blocked file type (.vbs): executables cannot be attached'],
    ['a .msi', { attachments: [{ filename: 'x.msi', content: png }] }, 'attachments[0].filename has a blocked file type (.msi): executables cannot be attached'],
    ['a .scr', { attachments: [{ filename: 'x.scr', content: png }] }, 'attachments[0].filename has a blocked file type (.scr): executables cannot be attached'],
    ['a .cmd', { attachments: [{ filename: 'x.cmd', content: png }] }, 'attachments[0].filename has a blocked file type (.cmd): executables cannot be attached'],
    ['a content_type that is no MIME type', { attachments: [{ filename: 'a.pdf', content: png, content_type: 'pdf' }] }, 'attachments[0].content_type must be a MIME type such as application/pdf (got "pdf")'],
    ['a content_type with a line break', { attachments: [{ filename: 'a.pdf', content: png, content_type: 'text/plain\r\nBcc: x@example.com' }] }, 'attachments[0].content_type must not contain line breaks or control characters'],
    ['a content_id with a line break', { attachments: [{ filename: 'a.png', content: png, content_id: 'logo\nX: y' }] }, 'attachments[0].content_id must not contain line breaks or control characters'],
    ['a content_id with a space', { attachments: [{ filename: 'a.png', content: png, content_id: 'my logo' }] }, 'attachments[0].content_id must be printable ASCII without spaces or angle brackets (got "my logo")'],
    ['an empty content_id', { attachments: [{ filename: 'a.png', content: png, content_id: '<>' }] }, 'attachments[0].content_id must not be empty'],
    ['a content_id given twice', { attachments: [{ filename: 'a.png', content: png, content_id: 'logo' }, { filename: 'b.png', content: png, content_id: '<logo>' }] }, 'attachments[1].content_id "logo" is given twice'],
    ['more than 100 attachments', { attachments: Array.from({ length: 101 }, (_, i) => ({ filename: `${i}.txt`, content: png })) }, 'attachments must contain at most 100 attachments (got 101)'],
    ['attachments not an array', { attachments: { filename: 'a.txt', content: png } }, 'attachments must be an array'],
    ['content not a string', { attachments: [{ filename: 'a.txt', content: 42 }] }, 'attachments[0].content must be a string'],
    ['a misspelt attachment field', { attachments: [{ filename: 'a.txt', content: png, contentType: 'text/plain' }] }, 'attachments[0].contentType is not a supported field'],
    ['a misspelt attachments field', { attachment: [{ filename: 'a.txt', content: png }] }, 'attachment is not a supported field'],
  ];
  for (const [name, overrides, error] of invalid) {
    it(`refuses ${name} with 400 and writes nothing`, async () => {
      const before = await writtenRows(t.db);
      const res = await t.call('POST', '/v1/send', { body: sendBody(overrides) });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json(), { success: false, error });
      assert.deepEqual(await writtenRows(t.db), before);
    });
  }

  it('refuses more than 40 MB together after decoding with 400, and writes nothing', async () => {
    const before = await writtenRows(t.db);
    const res = await t.call('POST', '/v1/send', { body: sendBody({ attachments: [sized(20 * MiB, 'a.bin'), sized(Math.round(21.2 * MiB), 'b.bin')] }) });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { success: false, error: 'attachments must be at most 40 MB together after decoding (got 41.2 MB)' });
    assert.deepEqual(await writtenRows(t.db), before);
  });

  describe('in POST /v1/send/batch', () => {
    it('stores each item’s attachments with its own message', async () => {
      const [a, b] = [randomBytes(5_000), randomBytes(6_000)];
      const res = await t.call('POST', '/v1/send/batch', {
        body: [sendBody({ attachments: [{ filename: 'a.csv', content: a.toString('base64') }] }), sendBody(), sendBody({ attachments: [{ filename: 'b.zip', content: b.toString('base64') }] })],
      });
      assert.equal(res.statusCode, 200, res.body);
      const ids = (res.json().data as { message_id: string }[]).map((r) => r.message_id);
      const listed = await Promise.all(ids.map(async (id) => (await t.call('GET', `/v1/messages/${id}`)).json().data.attachments));
      assert.deepEqual(listed, [
        [{ filename: 'a.csv', content_type: 'text/csv', content_id: null, size: 5_000 }],
        [],
        [{ filename: 'b.zip', content_type: 'application/zip', content_id: null, size: 6_000 }],
      ]);
      const stored = await t.db.selectFrom('message_attachments').select(['message_id', 'content']).where('message_id', 'in', ids).execute();
      assert.deepEqual(stored.map((r) => [ids.indexOf(r.message_id), sha256(r.content)]).sort(), [[0, sha256(a)], [2, sha256(b)]]);
    });

    it('names the item of an invalid attachment, and writes nothing', async () => {
      const before = await writtenRows(t.db);
      const res = await t.call('POST', '/v1/send/batch', { body: [sendBody(), sendBody({ attachments: [{ filename: 'x.exe', content: png }] })] });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { success: false, error: '[1].attachments[0].filename has a blocked file type (.exe): executables cannot be attached' });
      assert.deepEqual(await writtenRows(t.db), before);
    });

    it('refuses more than 40 MB of attachments over the whole batch, and writes nothing', async () => {
      const before = await writtenRows(t.db);
      const res = await t.call('POST', '/v1/send/batch', { body: [sendBody({ attachments: [sized(30 * MiB)] }), sendBody({ attachments: [sized(11 * MiB)] })] });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { success: false, error: 'attachments of a batch must be at most 40 MB together after decoding (got 41.0 MB)' });
      assert.deepEqual(await writtenRows(t.db), before);
    });
  });

  describe('with an Idempotency-Key', () => {
    it('replays a large send, and refuses the same key with other attachment bytes (409)', async () => {
      const content = randomBytes(8 * MiB);
      const body = sendBody({ attachments: [{ filename: 'data.bin', content: content.toString('base64') }] });
      const call = (payload: object) =>
        t.app.inject({ method: 'POST', url: '/v1/send', headers: { 'x-api-key': t.apiKey, 'idempotency-key': 'attach-1' }, payload });
      const first = await call(body);
      assert.equal(first.statusCode, 200, first.body);
      const again = await call(body);
      assert.equal(again.statusCode, 200);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json().data.message_id, first.json().data.message_id);
      content[content.length - 1] = content[content.length - 1]! ^ 1;
      const other = await call(sendBody({ attachments: [{ filename: 'data.bin', content: content.toString('base64') }] }));
      assert.equal(other.statusCode, 409);
      assert.deepEqual(other.json(), { success: false, error: 'Idempotency-Key was already used with a different request' });
      const stored = await t.db.selectFrom('message_attachments').select('message_id').where('filename', '=', 'data.bin').execute();
      assert.equal(stored.length, 1, 'written once');
    });
  });
});
