import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, sendBody, writtenRows, type TestApp } from './helpers/test-app.js';

describe('POST /v1/send', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000' });
  });
  after(() => t.close());

  it('accepts a valid send: one send log entry per recipient, one message id, one outbox row', async () => {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ to: ['a@example.com', 'B <b@example.com>'], html: '<p>Hi</p>' }) });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.success, true);
    assert.equal(body.data.status, 'sent');
    assert.match(body.data.message_id, /^msg_[0-9a-z]{26}$/);
    assert.equal(body.data.error, undefined);

    const entries = await t.db.selectFrom('log_entries').selectAll().where('message_id', '=', body.data.message_id).orderBy('recipient').execute();
    assert.deepEqual(
      entries.map((e) => [e.type, e.status, e.recipient, e.from_email, e.subject]),
      [
        ['send', 'sent', 'a@example.com', 'hello@sandbox.mailroom.test', 'Hello'],
        ['send', 'sent', 'b@example.com', 'hello@sandbox.mailroom.test', 'Hello'],
      ],
    );
    const job = await t.store.messages.findJobByMessage(body.data.message_id);
    assert.equal(job?.state, 'pending');
    const message = await t.db.selectFrom('messages').selectAll().where('id', '=', body.data.message_id).executeTakeFirstOrThrow();
    assert.deepEqual([message.from_name, message.from_address, message.reply_to], ['Mailroom', 'hello@sandbox.mailroom.test', null]);
    assert.deepEqual(JSON.parse(message.recipients), [
      { name: '', address: 'a@example.com' },
      { name: 'B', address: 'b@example.com' },
    ]);
  });

  it('accepts 50 recipients and collapses duplicates, compared case-insensitively', async () => {
    const to = Array.from({ length: 50 }, (_, i) => `user${i}@example.com`);
    const res = await t.call('POST', '/v1/send', { body: sendBody({ to }) });
    assert.equal(res.statusCode, 200);
    const count = await t.db.selectFrom('log_entries').where('message_id', '=', res.json().data.message_id).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 50);

    const dup = await t.call('POST', '/v1/send', { body: sendBody({ to: ['x@example.com', 'X@Example.com', 'Name <x@example.com>'] }) });
    const entries = await t.db.selectFrom('log_entries').select('recipient').where('message_id', '=', dup.json().data.message_id).execute();
    assert.deepEqual(entries.map((e) => e.recipient), ['x@example.com']);
  });

  it('answers failed with data.error when the sender domain is not a verified domain of the workspace', async () => {
    const before = await writtenRows(t.db);
    const res = await t.call('POST', '/v1/send', { body: sendBody({ from_email: 'me@unverified.example', to: ['a@example.com', 'b@example.com'] }) });
    assert.equal(res.statusCode, 200);
    const { data } = res.json();
    assert.equal(data.status, 'failed');
    assert.equal(data.error, 'Sender domain unverified.example is not a domain of this workspace; add and verify it first');
    const entries = await t.db.selectFrom('log_entries').selectAll().where('message_id', '=', data.message_id).execute();
    assert.deepEqual(entries.map((e) => [e.status, e.error]), [
      ['failed', data.error],
      ['failed', data.error],
    ]);
    // Failed before reaching the provider: nothing for the worker to do.
    assert.equal(await t.store.messages.findJobByMessage(data.message_id), undefined);
    const afterRows = await writtenRows(t.db);
    assert.equal(afterRows.delivery_jobs, before.delivery_jobs);
  });

  it('answers failed for an added but unverified domain', async () => {
    const added = await t.call('POST', '/v1/domains', { body: { domain: 'pending.example' } });
    assert.equal(added.statusCode, 201);
    const res = await t.call('POST', '/v1/send', { body: sendBody({ from_email: 'Me <me@pending.example>' }) });
    assert.deepEqual(res.json().data.status, 'failed');
    assert.equal(res.json().data.error, 'Sender domain pending.example is not verified; publish its DNS records and verify it first');
  });

  // A single send may take its sender domain's verification from memory (send-service.ts): the write checks it again.
  it('writes a send failed, with why, once its domain stops being verified or is deleted, though this process remembers it verified', async () => {
    const now = new Date().toISOString();
    await t.store.domains.insert({
      id: 'dom_remembered', workspace_id: t.workspaceId, domain: 'remembered.example', status: 'verified', dkim_selector: 's', dkim_private_key: 'x', dkim_public_key: 'y',
      return_path_domain: 'mr-bounces.remembered.example', verification_error: null, created_at: now, verified_at: now, last_checked_at: now, upstream_ids: null, open_tracking: 0, click_tracking: 0, tracking_domain: null, tracking_domain_status: null,
    });
    const send = async () => (await t.call('POST', '/v1/send', { body: sendBody({ from_email: 'hello@remembered.example' }) })).json().data;
    const first = await send();
    assert.equal(first.status, 'sent');
    const messagesBefore = (await writtenRows(t.db)).messages!;

    // Changed in the store, as the domain checker or another process would: this process is not told.
    await t.store.domains.updateVerification('dom_remembered', { status: 'failed', verification_error: 'DKIM record missing', verified_at: null, last_checked_at: now });
    const unverified = await send();
    assert.deepEqual([unverified.status, unverified.error], ['failed', 'Sender domain remembered.example is not verified; publish its DNS records and verify it first']);
    const entry = await t.store.logs.findSendEntry(unverified.message_id, 'user@example.com');
    assert.deepEqual([entry?.status, entry?.error], ['failed', unverified.error]);
    assert.equal(await t.store.messages.findJobByMessage(unverified.message_id), undefined, 'nothing queued for delivery');
    assert.equal((await writtenRows(t.db)).messages, messagesBefore + 1, 'the refused write left nothing behind: one message for the one send');

    await t.db.deleteFrom('domains').where('id', '=', 'dom_remembered').execute();
    const deleted = await send();
    assert.deepEqual([deleted.status, deleted.error], ['failed', 'Sender domain remembered.example is not a domain of this workspace; add and verify it first']);
  });

  it('answers suppressed when every recipient is suppressed, sent when only some are', async () => {
    for (const email of ['blocked@example.com', 'gone@example.com']) {
      await t.store.suppressions.add({ workspace_id: t.workspaceId, email, reason: 'hard_bounce', source_message_id: null, created_at: new Date().toISOString() });
    }
    const all = await t.call('POST', '/v1/send', { body: sendBody({ to: ['Blocked@Example.com', 'gone@example.com'] }) });
    assert.equal(all.json().data.status, 'suppressed');
    assert.equal(all.json().data.error, undefined);
    assert.equal(await t.store.messages.findJobByMessage(all.json().data.message_id), undefined);
    const entries = await t.db.selectFrom('log_entries').selectAll().where('message_id', '=', all.json().data.message_id).execute();
    assert.deepEqual(entries.map((e) => e.status), ['suppressed', 'suppressed']);
    assert.equal(entries[0]!.error, 'Recipient is on the suppression list (hard_bounce)');

    const some = await t.call('POST', '/v1/send', { body: sendBody({ to: ['ok@example.com', 'blocked@example.com'] }) });
    assert.equal(some.json().data.status, 'sent');
    const mixed = await t.db.selectFrom('log_entries').select(['recipient', 'status']).where('message_id', '=', some.json().data.message_id).orderBy('recipient').execute();
    assert.deepEqual(mixed, [
      { recipient: 'blocked@example.com', status: 'suppressed' },
      { recipient: 'ok@example.com', status: 'sent' },
    ]);
    assert.equal((await t.store.messages.findJobByMessage(some.json().data.message_id))?.state, 'pending');
  });

  it('does not apply another workspace\'s suppression list', async () => {
    const other = await t.newWorkspace();
    await t.store.suppressions.add({ workspace_id: other.workspaceId, email: 'only-there@example.com', reason: 'complaint', source_message_id: null, created_at: new Date().toISOString() });
    const res = await t.call('POST', '/v1/send', { body: sendBody({ to: ['only-there@example.com'] }) });
    assert.equal(res.json().data.status, 'sent');
  });

  const invalid: [string, unknown, string][] = [
    ['missing to', sendBody({ to: undefined }), 'to is required'],
    ['to not an array', sendBody({ to: 'a@example.com' }), 'to must be an array'],
    ['to with a non-string', sendBody({ to: ['a@example.com', 5] }), 'to[1] must be a string'],
    ['empty to', sendBody({ to: [] }), 'to must contain at least one recipient'],
    ['51 recipients', sendBody({ to: Array.from({ length: 51 }, (_, i) => `u${i}@example.com`) }), 'to must contain at most 50 recipients (got 51)'],
    ['invalid recipient', sendBody({ to: ['ok@example.com', 'not-an-address'] }), 'to[1] must be a valid email address, optionally as Name <address> (got "not-an-address")'],
    ['recipient without a dot in the domain', sendBody({ to: ['a@localhost'] }), 'to[0] must be a valid email address, optionally as Name <address> (got "a@localhost")'],
    ['recipient with a space', sendBody({ to: ['a b@example.com'] }), 'to[0] must be a valid email address, optionally as Name <address> (got "a b@example.com")'],
    ['missing from_email', sendBody({ from_email: undefined }), 'from_email is required'],
    ['from_email not a string', sendBody({ from_email: 42 }), 'from_email must be a string'],
    ['invalid from_email', sendBody({ from_email: 'Mailroom hello@sandbox.mailroom.test' }), 'from_email must be a valid email address, optionally as Name <address> (got "Mailroom hello@sandbox.mailroom.test")'],
    ['two from addresses', sendBody({ from_email: 'a@example.com, b@example.com' }), 'from_email must be a valid email address, optionally as Name <address> (got "a@example.com, b@example.com")'],
    [
      'a second sender hidden in a bare display name',
      sendBody({ from_email: 'ceo@bank.example, Acme <hello@sandbox.mailroom.test>' }),
      'from_email must be a valid email address, optionally as Name <address> (got "ceo@bank.example, Acme <hello@sandbox.mailroom.test>")',
    ],
    [
      'a recipient list hidden in a bare display name',
      sendBody({ to: ['a@example.com, Foo <c@example.com>'] }),
      'to[0] must be a valid email address, optionally as Name <address> (got "a@example.com, Foo <c@example.com>")',
    ],
    ['a reply_to with a group separator in a bare name', sendBody({ reply_to: 'Support; x <s@example.com>' }), 'reply_to must be a valid email address, optionally as Name <address> (got "Support; x <s@example.com>")'],
    ['missing subject', sendBody({ subject: undefined }), 'subject is required'],
    ['blank subject', sendBody({ subject: '   ' }), 'subject must not be empty'],
    ['subject too long', sendBody({ subject: 'x'.repeat(999) }), 'subject must be at most 998 characters long'],
    ['neither html nor text', sendBody({ text: undefined }), 'html or text is required: give at least one of them'],
    ['html and text empty', sendBody({ text: '', html: '' }), 'html or text is required: give at least one of them'],
    ['html not a string', sendBody({ html: 1 }), 'html must be a string'],
    // PostgreSQL's text refuses NUL: without this check such a send was a 500 there and stored on SQLite.
    ['a NUL in text', sendBody({ text: 'Hi\u0000there' }), 'text must not contain NUL characters'],
    ['a NUL in html', sendBody({ html: '<p>Hi\u0000</p>', text: undefined }), 'html must not contain NUL characters'],
    ['invalid reply_to', sendBody({ reply_to: 'nobody' }), 'reply_to must be a valid email address, optionally as Name <address> (got "nobody")'],
    ['unknown field', sendBody({ bbc: ['x@example.com'] }), 'bbc is not a supported field'],
    ['body not an object', ['a'], 'The request body must be a JSON object'],
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

  const injections: [string, Record<string, unknown>, string][] = [
    ['subject', { subject: 'Hi\r\nBcc: victim@example.com' }, 'subject must not contain line breaks or control characters'],
    ['subject (bare LF)', { subject: 'Hi\nX-Injected: 1' }, 'subject must not contain line breaks or control characters'],
    ['from_email display name', { from_email: 'Evil\r\nBcc: victim@example.com <hello@sandbox.mailroom.test>' }, 'from_email must not contain line breaks or control characters'],
    ['from_email address', { from_email: 'hello@sandbox.mailroom.test\nBcc: victim@example.com' }, 'from_email must not contain line breaks or control characters'],
    ['a recipient', { to: ['a@example.com\r\nBcc: victim@example.com'] }, 'to[0] must not contain line breaks or control characters'],
    ['reply_to', { reply_to: 'Support\r\n <s@example.com>' }, 'reply_to must not contain line breaks or control characters'],
  ];
  for (const [where, override, error] of injections) {
    it(`refuses header injection through ${where}`, async () => {
      const before = await writtenRows(t.db);
      const res = await t.call('POST', '/v1/send', { body: sendBody(override) });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { success: false, error });
      assert.deepEqual(await writtenRows(t.db), before);
    });
  }

  it('accepts null for the optional fields and a display name with a comma in quotes', async () => {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ html: null, reply_to: null, from_email: '"Mailroom, Inc." <hello@sandbox.mailroom.test>' }) });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.status, 'sent');
    const message = await t.db.selectFrom('messages').selectAll().where('id', '=', res.json().data.message_id).executeTakeFirstOrThrow();
    assert.equal(message.from_name, 'Mailroom, Inc.');
  });

  it('keeps the parsed Reply-To mailbox, not the raw string', async () => {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ reply_to: ' "Support, EU" <help@example.com> ' }) });
    const message = await t.db.selectFrom('messages').selectAll().where('id', '=', res.json().data.message_id).executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(message.reply_to!), [{ name: 'Support, EU', address: 'help@example.com' }]);
  });
});
