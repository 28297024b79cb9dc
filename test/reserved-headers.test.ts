/**
 * Authentication and trace headers, and Mailroom's own X-Mailroom-* names,
 * are refused as custom headers on every HTTP way in: /v1/send, its batch,
 * and the Resend-compatible routes in Resend's dialect. Nothing is written
 * by a refused request. (SMTP submission drops them instead: see
 * submission-fields.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, sendBody, writtenRows, type TestApp } from './helpers/test-app.js';

const TRACE = 'is a trace or authentication header, which only the servers a message passes through write, and cannot be given';
const OWN = "is in the X-Mailroom- namespace, which is Mailroom's own, and cannot be given";

const REFUSED: [string, string][] = [
  ['Authentication-Results', TRACE],
  ['ARC-Seal', TRACE],
  ['ARC-Message-Signature', TRACE],
  ['arc-authentication-results', TRACE],
  ['Received', TRACE],
  ['Received-SPF', TRACE],
  ['Delivered-To', TRACE],
  ['X-Original-To', TRACE],
  ['Return-Path', 'is set by Mailroom and cannot be given'],
  ['DKIM-Signature', 'is set by Mailroom and cannot be given'],
  ['X-Mailroom-Id', OWN],
  ['x-mailroom-message-id', OWN],
];

describe('reserved custom headers', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000' });
  });
  after(() => t.close());

  const resend = (path: string, body: unknown) =>
    t.app.inject({ method: 'POST', url: `/compat/resend${path}`, headers: { authorization: `Bearer ${t.apiKey}` }, payload: body as object });
  const resendEmail = (headers: Record<string, string>) => ({ from: 'hello@sandbox.mailroom.test', to: 'ann@example.com', subject: 'Hi', text: 'Hello', headers });

  for (const [name, reason] of REFUSED) {
    it(`refuses ${name} on /v1/send, /v1/send/batch and the Resend routes, writing nothing`, async () => {
      const before = await writtenRows(t.db);
      const headers = { 'X-Campaign': 'spring', [name]: 'forged' };

      const single = await t.call('POST', '/v1/send', { body: sendBody({ headers }) });
      assert.deepEqual([single.statusCode, single.json()], [400, { success: false, error: `headers: ${name} ${reason}` }]);

      const batch = await t.call('POST', '/v1/send/batch', { body: [sendBody(), sendBody({ headers })] });
      assert.deepEqual([batch.statusCode, batch.json()], [400, { success: false, error: `[1].headers: ${name} ${reason}` }]);

      const email = await resend('/emails', resendEmail(headers));
      assert.deepEqual([email.statusCode, email.json()], [422, { statusCode: 422, name: 'validation_error', message: `headers: ${name} ${reason}` }]);

      const emails = await resend('/emails/batch', [resendEmail({}), resendEmail(headers)]);
      assert.deepEqual([emails.statusCode, emails.json()], [422, { statusCode: 422, name: 'validation_error', message: `[1].headers: ${name} ${reason}` }]);

      assert.deepEqual(await writtenRows(t.db), before);
    });
  }

  it('still takes headers of the same families that are not reserved', async () => {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ headers: { 'X-Mail-Id': '1', 'Receipt-Id': '2', 'X-Arc': '3', 'List-Unsubscribe': '<mailto:u@example.com>' } }) });
    assert.equal(res.statusCode, 200, res.body);
    const message = await t.db.selectFrom('messages').select('headers').where('id', '=', res.json().data.message_id).executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(message.headers!), [['X-Mail-Id', '1'], ['Receipt-Id', '2'], ['X-Arc', '3'], ['List-Unsubscribe', '<mailto:u@example.com>']]);
  });
});
