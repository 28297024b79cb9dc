import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';

const FROM = 'Acme <hello@sandbox.mailroom.test>';
const ORDER = {
  name: 'Order shipped',
  alias: 'order-shipped',
  subject: 'Order {{order}} shipped',
  html: '<p>Hi {{first_name}}, order {{order}} is on its way.</p>',
  from: FROM,
  reply_to: 'help@sandbox.mailroom.test',
  variables: [
    { key: 'first_name', type: 'string' },
    { key: 'order', type: 'number' },
  ],
};

describe('sending with a template: POST /v1/send and /v1/send/batch', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_OTHER_PER_MIN: '100000', RATE_LIMIT_SEND_PER_MIN: '100000', WORKER_POLL_MS: '20' }, { worker: true });
    assert.equal((await t.call('POST', '/v1/templates', { body: ORDER })).statusCode, 201);
    assert.equal((await t.call('POST', '/v1/templates/order-shipped/publish')).statusCode, 200);
  });
  after(() => t.close());

  const send = (body: Record<string, unknown>) => t.call('POST', '/v1/send', { body: { to: ['ada@example.com'], ...body } });
  const logCount = async () => Number((await t.call('GET', '/v1/send/logs?limit=1')).headers['x-total-count']);

  it('stores the rendered subject, HTML and text, the template\'s from and reply_to, and which template and version', async () => {
    const res = await send({ template: { id: 'order-shipped', variables: { first_name: 'Ada', order: 42 } } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'sent');
    const id = res.json().data.message_id;
    const detail = (await t.call('GET', `/v1/messages/${id}`)).json().data;
    assert.equal(detail.subject, 'Order 42 shipped');
    assert.equal(detail.from_email, 'hello@sandbox.mailroom.test');
    assert.equal(detail.reply_to, 'help@sandbox.mailroom.test');
    assert.equal(detail.template_id, (await t.call('GET', '/v1/templates/order-shipped')).json().data.id);
    assert.equal(detail.template_version, 1);
    await waitFor(async () => (await t.call('GET', `/v1/messages/${id}/content`)).json().data.raw !== null, 'the message built and handed over');
    const content = (await t.call('GET', `/v1/messages/${id}/content`)).json().data;
    assert.equal(content.html, '<p>Hi Ada, order 42 is on its way.</p>');
    // A template without text sends HTML alone, as any such send: its text part is made when the message is built.
    assert.equal(content.text, null);
    const built = await simpleParser(content.raw);
    assert.deepEqual([built.text?.trim(), built.html], ['Hi Ada, order 42 is on its way.', '<p>Hi Ada, order 42 is on its way.</p>']);

    // A later edit, published, changes later sends only; a send may still name version 1.
    await t.call('PATCH', '/v1/templates/order-shipped', { body: { subject: 'Your order {{order}} left' } });
    await t.call('POST', '/v1/templates/order-shipped/publish');
    assert.equal((await t.call('GET', `/v1/messages/${id}`)).json().data.subject, 'Order 42 shipped');
    const v2 = (await send({ template: { id: 'order-shipped', variables: { first_name: 'Ada', order: 7 } } })).json().data.message_id;
    assert.deepEqual([(await t.call('GET', `/v1/messages/${v2}`)).json().data.subject, (await t.call('GET', `/v1/messages/${v2}`)).json().data.template_version], ['Your order 7 left', 2]);
    const v1 = (await send({ template: { id: 'order-shipped', version: 1, variables: { first_name: 'Ada', order: 7 } } })).json().data.message_id;
    assert.equal((await t.call('GET', `/v1/messages/${v1}`)).json().data.subject, 'Order 7 shipped');
  });

  it('takes the send\'s own from_email over the template\'s', async () => {
    const res = await send({ from_email: 'Other <other@sandbox.mailroom.test>', template: { id: 'order-shipped', variables: { first_name: 'Ada', order: 1 } } });
    assert.equal((await t.call('GET', `/v1/messages/${res.json().data.message_id}`)).json().data.from_email, 'other@sandbox.mailroom.test');
  });

  it('answers 400 and writes nothing for variables that are missing, unknown or mistyped, naming each', async () => {
    const before = await logCount();
    const res = await send({ template: { id: 'order-shipped', variables: { order: 'forty-two', coupon: 'X' } } });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), {
      success: false,
      error: 'template variable "coupon" is not declared; template variable "first_name" is missing; template variable "order" must be a number',
    });
    assert.equal(await logCount(), before);
  });

  it('answers 400 for a template beside subject, html or text, an unknown template, and an unpublished one', async () => {
    const both = await send({ subject: 'Hi', html: '<p>x</p>', template: { id: 'order-shipped', variables: { first_name: 'A', order: 1 } } });
    assert.deepEqual(both.json(), { success: false, error: 'template cannot be given with subject, html: the template provides the subject, html and text' });
    const unknown = await send({ template: { id: 'no-such-template' } });
    assert.deepEqual([unknown.statusCode, unknown.json().error], [400, 'template.id "no-such-template" names no template of this workspace']);
    await t.call('POST', '/v1/templates', { body: { ...ORDER, alias: 'draft-only' } });
    const draft = await send({ template: { id: 'draft-only', variables: { first_name: 'A', order: 1 } } });
    assert.deepEqual([draft.statusCode, draft.json().error], [400, 'template "draft-only" is not published']);
    const noVersion = await send({ template: { id: 'order-shipped', version: 9, variables: { first_name: 'A', order: 1 } } });
    assert.deepEqual([noVersion.statusCode, noVersion.json().error], [400, 'template "order-shipped" has no published version 9']);
  });

  it('still requires subject and from_email without a template', async () => {
    assert.equal((await send({ from_email: FROM, text: 'x' })).json().error, 'subject is required');
    assert.equal((await send({ subject: 'x', text: 'x' })).json().error, 'from_email is required');
  });

  it('renders each batch item\'s template, and refuses the whole batch naming the item whose variables are wrong', async () => {
    const good = { to: ['a@example.com'], template: { id: 'order-shipped', variables: { first_name: 'A', order: 1 } } };
    const before = await logCount();
    const bad = await t.call('POST', '/v1/send/batch', { body: [good, { to: ['b@example.com'], template: { id: 'order-shipped', variables: { order: 2 } } }] });
    assert.deepEqual([bad.statusCode, bad.json().error], [400, '[1].template variable "first_name" is missing']);
    assert.equal(await logCount(), before);
    const ok = await t.call('POST', '/v1/send/batch', { body: [good, { ...good, to: ['c@example.com'] }] });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json().data.map((r: { status: string }) => r.status), ['sent', 'sent']);
  });
});
