import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { simpleParser, type AddressObject } from 'mailparser';
import type { Resend as ResendClient } from 'resend';
import type { TestDnsServer } from './helpers/dns-server.js';
import { startResendHarness, type ResendHarness } from './helpers/resend-harness.js';
import { headerOf, type SmtpSink } from './helpers/smtp-sink.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';

const DOMAIN = 'mail.acme.example';
const FROM = `Acme <hello@${DOMAIN}>`;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const addresses = (field: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((a) => a.value.map((v) => v.address));

/**
 * Resend's own Node SDK (the `resend` package), pointed at a listening
 * Mailroom with RESEND_BASE_URL, against the real app delivering through a
 * real SMTP server on loopback.
 */
describe('the Resend-compatible API, driven by the official resend SDK', () => {
  let h: ResendHarness;
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let t: TestApp;
  let Resend: typeof ResendClient;
  let resend: ResendClient;

  before(async () => {
    h = await startResendHarness(DOMAIN);
    ({ dns, sink, t, Resend, resend } = h);
  });
  after(() => h.close());

  async function delivered(id: string) {
    await waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', `the job of ${id} to finish`);
    return sink.received.filter((m) => (m.envelope.mailFrom as { address: string }).address.includes(id));
  }

  it('sends with attachments, an inline image, tags, cc, bcc, replyTo and headers; delivered byte-identical, Bcc in no header', async () => {
    const report = randomBytes(300_000);
    const logo = randomBytes(3_000);
    const { data, error, headers } = await resend.emails.send({
      from: FROM,
      to: 'Ada <ada@example.com>',
      cc: ['carol@example.com'],
      bcc: 'dave@example.com',
      replyTo: ['help@acme.example'],
      subject: 'Your report',
      html: '<p>Here <img src="cid:logo"></p>',
      text: 'Here',
      headers: { 'X-Entity-Ref-ID': 'report-7' },
      tags: [{ name: 'plan', value: 'pro' }, { name: 'order_id', value: 'ord-42' }],
      attachments: [
        { filename: 'report.bin', content: report },
        { filename: 'notes.txt', content: Buffer.from('hello notes').toString('base64') },
        { filename: 'logo.png', content: logo, contentId: 'logo' },
      ],
    });
    assert.equal(error, null);
    assert.deepEqual(Object.keys(data!), ['id']);
    const id = data!.id;
    assert.match(id, /^msg_/);
    assert.ok(Number(headers!['ratelimit-limit']) > 0, 'Resend rate-limit headers');
    assert.ok(headers!['ratelimit-remaining'] !== undefined && headers!['ratelimit-reset'] !== undefined);
    assert.ok(headers!['x-ratelimit-limit'], "Mailroom's own rate-limit headers too");

    // What Mailroom's own API says of it.
    const detail = (await t.call('GET', `/v1/messages/${id}`)).json().data;
    assert.deepEqual([detail.from_email, detail.cc, detail.bcc, detail.reply_to], [`hello@${DOMAIN}`, ['carol@example.com'], ['dave@example.com'], 'help@acme.example']);
    assert.deepEqual(detail.tags, { plan: 'pro', order_id: 'ord-42' });
    assert.deepEqual(
      detail.attachments.map((a: { filename: string; content_id: string | null; size: number }) => [a.filename, a.content_id, a.size]),
      [['report.bin', null, report.length], ['notes.txt', null, 11], ['logo.png', 'logo', logo.length]],
    );

    // What the relay got.
    const copies = await delivered(id);
    assert.deepEqual(copies.flatMap((c) => c.envelope.rcptTo.map((r) => r.address)).sort(), ['ada@example.com', 'carol@example.com', 'dave@example.com']);
    const raw = copies[0]!.raw;
    assert.equal(headerOf(raw, 'Bcc'), undefined);
    assert.ok(!raw.includes('dave@'), 'the Bcc address is nowhere in the message');
    const parsed = await simpleParser(raw);
    assert.deepEqual([addresses(parsed.to), addresses(parsed.cc), addresses(parsed.replyTo)], [['ada@example.com'], ['carol@example.com'], ['help@acme.example']]);
    assert.equal(parsed.headers.get('x-entity-ref-id'), 'report-7');
    const byName = new Map(parsed.attachments.map((a) => [a.filename, a]));
    assert.equal(sha256(byName.get('report.bin')!.content), sha256(report));
    assert.equal(byName.get('notes.txt')!.content.toString(), 'hello notes');
    assert.equal(sha256(byName.get('logo.png')!.content), sha256(logo));
    assert.equal(byName.get('logo.png')!.contentId, '<logo>');

    // Read back through the SDK: Resend's email object, exactly.
    const got = await resend.emails.get(id);
    assert.equal(got.error, null);
    assert.deepEqual(got.data, {
      object: 'email',
      id,
      to: ['Ada <ada@example.com>'],
      from: FROM,
      created_at: detail.created_at,
      subject: 'Your report',
      html: '<p>Here <img src="cid:logo"></p>',
      text: 'Here',
      cc: ['carol@example.com'],
      bcc: ['dave@example.com'],
      reply_to: ['help@acme.example'],
      // The relay took it (250) and reports nothing back here: Resend's `sent`.
      last_event: 'sent',
      scheduled_at: null,
      tags: [{ name: 'plan', value: 'pro' }, { name: 'order_id', value: 'ord-42' }],
    });
  });

  it('batch-sends, all or nothing at validation, one request against the send budget', async () => {
    const before = (await t.call('GET', '/v1/send/stats')).json().data.total_sent;
    const { data, error } = await resend.batch.send([
      { from: FROM, to: ['grace@example.com'], subject: 'One', text: 'One' },
      { from: FROM, to: 'linus@example.com', subject: 'Two', html: '<p>Two</p>' },
    ]);
    assert.equal(error, null);
    assert.equal(data!.data.length, 2);
    assert.deepEqual(Object.keys(data!), ['data']);
    for (const [i, item] of data!.data.entries()) {
      const detail = (await t.call('GET', `/v1/messages/${item.id}`)).json().data;
      assert.equal(detail.subject, ['One', 'Two'][i]);
    }
    const refused = await resend.batch.send([
      { from: FROM, to: ['grace@example.com'], subject: 'One', text: 'One' },
      { from: FROM, to: ['not an address'], subject: 'Two', text: 'Two' },
    ]);
    assert.equal(refused.data, null);
    assert.equal(refused.error!.name, 'validation_error');
    assert.equal(refused.error!.statusCode, 422);
    assert.match(refused.error!.message, /^\[1\]\.to\[0\]/);
    assert.equal((await t.call('GET', '/v1/send/stats')).json().data.total_sent, before + 2, 'the refused batch wrote nothing');

    // An item whose sender domain may not send is recorded failed, as under /v1; the others go, and it is listed in `errors`.
    const partly = await resend.batch.send([
      { from: FROM, to: ['grace@example.com'], subject: 'Sent', text: 'Sent' },
      { from: 'hello@unverified.example', to: ['grace@example.com'], subject: 'Not sent', text: 'Not sent' },
    ]);
    assert.equal(partly.error, null);
    assert.equal(partly.data!.data.length, 1);
    const errors = (partly.data as unknown as { errors: { index: number; message: string }[] }).errors;
    assert.deepEqual(errors.map((e) => e.index), [1]);
    assert.match(errors[0]!.message, /unverified\.example/);
  });

  it('reads a scheduled send back as scheduled, cancels it, and reads it back as canceled', async () => {
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const { data } = await resend.emails.send({ from: FROM, to: 'ada@example.com', subject: 'Later', text: 'Later', scheduledAt });
    const id = data!.id;
    const before = await resend.emails.get(id);
    assert.deepEqual([before.data!.last_event, before.data!.scheduled_at], ['scheduled', scheduledAt]);

    const canceled = await resend.emails.cancel(id);
    assert.equal(canceled.error, null);
    assert.deepEqual(canceled.data, { object: 'email', id });
    assert.equal((await resend.emails.get(id)).data!.last_event, 'canceled');
    assert.equal((await t.call('GET', `/v1/messages/${id}`)).json().data.recipients[0].status, 'failed');

    const again = await resend.emails.cancel(id);
    assert.deepEqual([again.error!.statusCode, again.error!.name, again.error!.message], [409, 'validation_error', 'This message was already canceled']);
  });

  it('lists, creates, reads, verifies and removes domains', async () => {
    const listed = await resend.domains.list();
    assert.equal(listed.error, null);
    assert.equal(listed.data!.object, 'list');
    assert.equal(listed.data!.has_more, false);
    const acme = listed.data!.data.find((d) => d.name === DOMAIN)!;
    assert.deepEqual(Object.keys(acme).sort(), ['capabilities', 'created_at', 'id', 'name', 'status']);
    assert.equal(acme.status, 'verified');

    const created = await resend.domains.create({ name: 'News.Example.org' });
    assert.equal(created.error, null);
    const domainId = created.data!.id;
    assert.deepEqual([created.data!.name, created.data!.status], ['news.example.org', 'pending']);
    const dkim = created.data!.records.find((r) => r.record === 'DKIM')!;
    assert.deepEqual([dkim.type, dkim.status, dkim.ttl], ['TXT', 'not_started', 'Auto']);
    assert.match(dkim.name, /\._domainkey\.news\.example\.org$/);

    const got = await resend.domains.get(domainId);
    assert.deepEqual([got.data!.object, got.data!.id, got.data!.records.length], ['domain', domainId, created.data!.records.length]);

    dns.setTxt(dkim.name, [dkim.value]);
    const verified = await resend.domains.verify(domainId);
    assert.deepEqual(verified.data, { object: 'domain', id: domainId });
    const after = await resend.domains.get(domainId);
    assert.equal(after.data!.status, 'verified');
    assert.ok(after.data!.records.every((r) => r.status === 'verified'));

    const paged = await resend.domains.list({ limit: 1 });
    assert.deepEqual([paged.data!.data.map((d) => d.id), paged.data!.has_more], [[domainId], true], 'newest first, one per page');
    const next = await resend.domains.list({ limit: 1, after: domainId });
    assert.deepEqual([next.data!.data.map((d) => d.name), next.data!.has_more], [[DOMAIN], false]);

    assert.deepEqual((await resend.domains.remove(domainId)).data, { object: 'domain', id: domainId, deleted: true });
    const gone = await resend.domains.get(domainId);
    assert.deepEqual(gone.error, { statusCode: 404, name: 'not_found', message: 'Domain not found' });
  });

  it('creates, lists and removes API keys; a sending_access key sends but is refused elsewhere as a restricted key', async () => {
    const created = await resend.apiKeys.create({ name: 'shop', permission: 'sending_access' });
    assert.equal(created.error, null);
    assert.deepEqual(Object.keys(created.data!).sort(), ['id', 'token']);
    const { id: keyId, token } = created.data!;
    assert.match(token, /^mr_/);

    const listed = await resend.apiKeys.list();
    assert.equal(listed.data!.object, 'list');
    const shop = listed.data!.data.find((k) => k.id === keyId)!;
    assert.deepEqual(Object.keys(shop).sort(), ['created_at', 'id', 'last_used_at', 'name']);
    assert.equal(shop.name, 'shop');

    const sender = new Resend(token);
    const sent = await sender.emails.send({ from: FROM, to: 'ada@example.com', subject: 'Hi', text: 'Hi' });
    assert.equal(sent.error, null);
    const refused = await sender.domains.list();
    assert.equal(refused.data, null);
    assert.deepEqual(refused.error, { statusCode: 401, name: 'restricted_api_key', message: 'This API key can only send e-mail' });
    assert.equal((await sender.emails.get(sent.data!.id)).error!.name, 'restricted_api_key');

    assert.deepEqual((await resend.apiKeys.remove(keyId)).data, { object: 'api_key', id: keyId, deleted: true });
    const revoked = await sender.emails.send({ from: FROM, to: 'ada@example.com', subject: 'Hi', text: 'Hi' });
    assert.deepEqual(revoked.error, { statusCode: 403, name: 'invalid_api_key', message: 'Invalid or missing API key' });
  });

  it('sends with template: {id, variables}, from and subject from the published template; its variable errors as validation_error', async () => {
    const created = await t.call('POST', '/v1/templates', {
      body: { name: 'Welcome', alias: 'resend-welcome', subject: 'Hi {{name}}', html: '<p>Welcome, {{name}}</p>', from: FROM, variables: [{ key: 'name', type: 'string' }] },
    });
    assert.equal(created.statusCode, 201, created.body);
    await t.call('POST', '/v1/templates/resend-welcome/publish');
    const sent = await resend.emails.send({ to: 'ada@example.com', template: { id: 'resend-welcome', variables: { name: 'Ada' } } } as never);
    assert.equal(sent.error, null);
    const detail = (await t.call('GET', `/v1/messages/${sent.data!.id}`)).json().data;
    assert.deepEqual([detail.subject, detail.from_email, detail.template_version], ['Hi Ada', `hello@${DOMAIN}`, 1]);
    const missing = await resend.emails.send({ to: 'ada@example.com', template: { id: 'resend-welcome' } } as never);
    assert.deepEqual(missing.error, { statusCode: 422, name: 'validation_error', message: 'template variable "name" is missing' });
  });

  it("answers Resend's errors: invalid and missing keys, validation, path attachments, unsupported fields, unknown paths", async () => {
    const wrong = await new Resend('re_not_a_mailroom_key').emails.send({ from: FROM, to: 'ada@example.com', subject: 'Hi', text: 'Hi' });
    assert.deepEqual(wrong, { data: null, error: { statusCode: 403, name: 'invalid_api_key', message: 'Invalid or missing API key' }, headers: wrong.headers });

    const missing = await fetch(`${process.env.RESEND_BASE_URL}/domains`);
    assert.equal(missing.status, 401);
    assert.deepEqual(await missing.json(), { statusCode: 401, name: 'missing_api_key', message: 'Invalid or missing API key' });

    const invalid = await resend.emails.send({ from: FROM, to: 'ada@example.com', subject: 'Hi' } as never);
    assert.deepEqual(invalid.error, { statusCode: 422, name: 'validation_error', message: 'html or text is required: give at least one of them' });
    const badFrom = await resend.emails.send({ from: 'nobody', to: 'ada@example.com', subject: 'Hi', text: 'Hi' });
    assert.equal(badFrom.error!.statusCode, 422);
    assert.match(badFrom.error!.message, /^from /, "named as Resend's field");

    const byPath = await resend.emails.send({ from: FROM, to: 'ada@example.com', subject: 'Hi', text: 'Hi', attachments: [{ filename: 'a.pdf', path: 'https://example.com/a.pdf' }] });
    assert.equal(byPath.error!.statusCode, 422);
    assert.equal(byPath.error!.name, 'invalid_attachment');
    assert.match(byPath.error!.message, /^attachments\[0\]\.path is not supported/);

    const template = await resend.emails.send({ from: FROM, to: 'ada@example.com', subject: 'Hi', text: 'Hi', topicId: 'topic_1' });
    assert.deepEqual(template.error, { statusCode: 422, name: 'validation_error', message: 'topic_id is not a supported field' });

    const unverified = await resend.emails.send({ from: 'hello@unverified.example', to: 'ada@example.com', subject: 'Hi', text: 'Hi' });
    assert.deepEqual([unverified.error!.statusCode, unverified.error!.name], [403, 'validation_error']);

    const contacts = await resend.contacts.list({ audienceId: 'aud_1' } as never);
    assert.equal(contacts.error!.statusCode, 404);
    assert.equal(contacts.error!.name, 'not_found');
    const update = await resend.emails.update({ id: 'msg_1', scheduledAt: new Date().toISOString() });
    assert.equal(update.error!.name, 'not_found', 'a Resend route Mailroom does not cover answers 404');
  });

  it('replays a send given the same idempotencyKey, sending once; another body with it answers invalid_idempotent_request', async () => {
    const email = { from: FROM, to: 'ada@example.com', subject: 'Once', text: 'Once' };
    const first = await resend.emails.send(email, { idempotencyKey: 'order-42-receipt' });
    const second = await resend.emails.send(email, { idempotencyKey: 'order-42-receipt' });
    assert.equal(first.error, null);
    assert.deepEqual(second.data, first.data);
    assert.equal(second.headers!['idempotent-replayed'], 'true');
    const other = await resend.emails.send({ ...email, subject: 'Twice' }, { idempotencyKey: 'order-42-receipt' });
    assert.deepEqual([other.error!.statusCode, other.error!.name], [409, 'invalid_idempotent_request']);
  });

  it('answers 429 rate_limit_exceeded with retry-after once the send budget is spent', async () => {
    const limited = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '1' });
    try {
      const send = () =>
        limited.app.inject({
          method: 'POST',
          url: '/compat/resend/emails',
          headers: { authorization: `Bearer ${limited.apiKey}`, 'content-type': 'application/json' },
          payload: { from: 'hello@sandbox.mailroom.test', to: 'ada@example.com', subject: 'Hi', text: 'Hi' },
        });
      assert.equal((await send()).statusCode, 200);
      const res = await send();
      assert.equal(res.statusCode, 429);
      assert.deepEqual(res.json(), { statusCode: 429, name: 'rate_limit_exceeded', message: 'Rate limit exceeded' });
      assert.ok(Number(res.headers['retry-after']) >= 1);
      assert.deepEqual([res.headers['ratelimit-limit'], res.headers['ratelimit-remaining']], ['1', '0']);
    } finally {
      await limited.close();
    }
  });
});
