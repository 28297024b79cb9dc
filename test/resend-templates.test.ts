import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import type { Resend as ResendClient } from 'resend';
import { startResendHarness, type ResendHarness } from './helpers/resend-harness.js';
import type { TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';

const DOMAIN = 'mail.orbit.example';
const FROM = `Orbit Billing <billing@${DOMAIN}>`;

/** The `resend` package's templates methods, unchanged, against /compat/resend of a listening Mailroom delivering to a real SMTP server. */
describe("Resend's templates API, driven by the official resend SDK", () => {
  let h: ResendHarness;
  let t: TestApp;
  let resend: ResendClient;

  before(async () => {
    h = await startResendHarness(DOMAIN);
    ({ t, resend } = h);
  });
  after(() => h.close());

  it('creates and publishes in one chain, gets it in Resend’s shape, and sends it with variables; the delivered mail is the rendered template', async () => {
    const created = await resend.templates
      .create({
        name: 'Invoice ready',
        alias: 'invoice-ready',
        from: FROM,
        replyTo: 'accounts@orbit.example',
        subject: 'Invoice {{INVOICE}} for {{NAME}}',
        html: '<p>Hello {{NAME}}, your invoice {{INVOICE}} for {{{AMOUNT}}} is ready.</p>',
        variables: [
          { key: 'NAME', type: 'string', fallbackValue: 'there' },
          { key: 'INVOICE', type: 'number' },
          { key: 'AMOUNT', type: 'string' },
        ],
      })
      .publish();
    assert.equal(created.error, null);
    const id = created.data!.id;
    assert.match(id, /^tpl_/);

    const got = await resend.templates.get('invoice-ready');
    assert.equal(got.error, null);
    const template = got.data!;
    assert.deepEqual(
      [template.object, template.id, template.name, template.alias, template.status, template.from, template.reply_to, template.has_unpublished_versions],
      ['template', id, 'Invoice ready', 'invoice-ready', 'published', FROM, ['accounts@orbit.example'], false],
    );
    assert.match(template.current_version_id, /^tplv_/);
    assert.ok(template.published_at);
    assert.deepEqual(template.variables!.map(({ key, type, fallback_value }) => [key, type, fallback_value]), [['NAME', 'string', 'there'], ['INVOICE', 'number', null], ['AMOUNT', 'string', null]]);

    const sent = await resend.emails.send({ to: 'ada@example.com', template: { id, variables: { INVOICE: 1042, AMOUNT: '&euro;120' } } } as never);
    assert.equal(sent.error, null);
    await waitFor(async () => (await t.store.messages.findJobByMessage(sent.data!.id))?.state === 'done', 'the templated send to be delivered');
    const raw = h.sink.received.find((m) => (m.envelope.mailFrom as { address: string }).address.includes(sent.data!.id))!;
    const mail = await simpleParser(raw.raw);
    assert.equal(mail.subject, 'Invoice 1042 for there');
    assert.equal(mail.html, '<p>Hello there, your invoice 1042 for &euro;120 is ready.</p>');
    assert.equal((mail.replyTo?.value ?? [])[0]?.address, 'accounts@orbit.example');
  });

  it('updates into a draft, publishes it as version 2, duplicates it as an unpublished copy, lists with cursors, and removes', async () => {
    const { data } = await resend.templates.create({ name: 'Receipt', html: '<p>Thanks, {{NAME}}</p>', subject: 'Receipt', variables: [{ key: 'NAME', type: 'string' }] });
    const id = data!.id;
    assert.equal((await resend.templates.get(id)).data!.status, 'draft');
    await resend.templates.publish(id);

    const updated = await resend.templates.update(id, { html: '<p>Thank you, {{NAME}}</p>', name: 'Receipt v2' });
    assert.deepEqual(updated, { data: { object: 'template', id }, error: null, headers: updated.headers });
    const drafted = (await resend.templates.get(id)).data!;
    assert.deepEqual([drafted.name, drafted.html, drafted.status, drafted.has_unpublished_versions], ['Receipt v2', '<p>Thank you, {{NAME}}</p>', 'published', true]);
    await resend.templates.publish(id);
    const versions = (await t.call('GET', `/v1/templates/${id}/versions`)).json().data;
    assert.deepEqual(versions.map((v: { version: number; html: string }) => [v.version, v.html]), [[2, '<p>Thank you, {{NAME}}</p>'], [1, '<p>Thanks, {{NAME}}</p>']]);

    const copy = await resend.templates.duplicate(id);
    assert.equal(copy.error, null);
    const duplicated = (await resend.templates.get(copy.data!.id)).data!;
    assert.deepEqual([duplicated.name, duplicated.status, duplicated.alias, duplicated.html], ['Receipt v2 (copy)', 'draft', null, '<p>Thank you, {{NAME}}</p>']);

    const all = (await resend.templates.list()).data!;
    assert.equal(all.object, 'list');
    assert.deepEqual(Object.keys(all.data[0]!).sort(), ['alias', 'created_at', 'id', 'name', 'published_at', 'status', 'updated_at']);
    const firstPage = (await resend.templates.list({ limit: 2 })).data!;
    const secondPage = (await resend.templates.list({ limit: 2, after: firstPage.data[1]!.id })).data!;
    assert.deepEqual([...firstPage.data, ...secondPage.data].map((x) => x.id), all.data.slice(0, firstPage.data.length + secondPage.data.length).map((x) => x.id));
    assert.equal(firstPage.has_more, all.data.length > 2);

    assert.deepEqual((await resend.templates.remove(copy.data!.id)).data, { object: 'template', id: copy.data!.id, deleted: true });
    assert.equal((await resend.templates.get(copy.data!.id)).error!.name, 'not_found');
    assert.equal((await resend.templates.list()).data!.data.length, all.data.length - 1);
  });

  it("answers Resend's errors: not_found, a taken alias, a syntax error with its line and column, undeclared variables, and a send naming a missing one", async () => {
    assert.deepEqual((await resend.templates.get('tpl_nope')).error, { statusCode: 404, name: 'not_found', message: 'Template not found' });
    assert.deepEqual((await resend.templates.publish('no-such-alias')).error, { statusCode: 404, name: 'not_found', message: 'Template not found' });

    await resend.templates.create({ name: 'Taken', alias: 'taken', html: '<p>Hi</p>' });
    const taken = await resend.templates.create({ name: 'Again', alias: 'taken', html: '<p>Hi</p>' });
    assert.deepEqual(taken.error, { statusCode: 409, name: 'validation_error', message: 'A template with the alias "taken" already exists' });

    const broken = await resend.templates.create({ name: 'Broken', html: '<p>\n{{#open}} never closed</p>', variables: [{ key: 'open', type: 'string' }] });
    assert.equal(broken.error!.statusCode, 422);
    assert.equal(broken.error!.name, 'validation_error');
    assert.match(broken.error!.message, /^html has a syntax error at line \d+, column \d+: /);

    const undeclared = await resend.templates.create({ name: 'Undeclared', html: '<p>{{{PRODUCT}}}</p>' });
    assert.deepEqual(undeclared.error, { statusCode: 422, name: 'validation_error', message: 'template uses variable "PRODUCT", which is not declared' });

    const two = await resend.templates.create({ name: 'Two replies', html: '<p>Hi</p>', replyTo: ['a@orbit.example', 'b@orbit.example'] });
    assert.deepEqual(two.error, { statusCode: 422, name: 'validation_error', message: 'reply_to: a template holds one reply-to address' });

    const { data } = await resend.templates.create({ name: 'Needs a name', from: FROM, subject: 'Hi', html: '<p>{{NAME}}</p>', variables: [{ key: 'NAME', type: 'string' }] }).publish();
    const wrong = await resend.emails.send({ to: 'ada@example.com', template: { id: data!.id, variables: { NAME: 7, EXTRA: 'x' } } } as never);
    assert.deepEqual(wrong.error, { statusCode: 422, name: 'validation_error', message: 'template variable "EXTRA" is not declared; template variable "NAME" must be a string' });

    const key = await resend.apiKeys.create({ name: 'sender', permission: 'sending_access' });
    const restricted = await new h.Resend(key.data!.token).templates.list();
    assert.deepEqual([restricted.error!.statusCode, restricted.error!.name], [401, 'restricted_api_key'], 'a sending_access key manages no templates');
  });
});
