/**
 * An application's own MTA relaying through Mailroom: a private Postfix with
 * `relayhost` = the submission port, STARTTLS required (`encrypt`) and SASL
 * (user `mailroom`, the API key as password). A mail handed to Postfix must be
 * logged by Mailroom like a POST /v1/send of it; a wrong key leaves the mail
 * deferred in Postfix's queue, with Mailroom's 535 in its log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { startPostfix, type PostfixInstance } from './helpers/postfix.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';

/** Hands a mail to Postfix's smtpd, as an application on the same host would (no TLS, no AUTH: mynetworks). */
async function inject(postfix: PostfixInstance, mail: SendMailOptions) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: postfix.port, secure: false, ignoreTLS: true });
  try {
    return await transport.sendMail(mail);
  } finally {
    transport.close();
  }
}

describe('SMTP submission behind Postfix (relayhost with SASL)', () => {
  let t: TestApp;
  let postfix: PostfixInstance;
  let wrongKeyPostfix: PostfixInstance;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000' }, { submission: true });
    const sending = (await t.call('POST', '/v1/api-keys', { body: { name: 'postfix', permission: 'sending_access' } })).json().data.key as string;
    postfix = await startPostfix({ relayPort: t.submission!.port, relayAuth: { username: 'mailroom', password: sending } });
    wrongKeyPostfix = await startPostfix({ relayPort: t.submission!.port, relayAuth: { username: 'mailroom', password: 'mr_not-a-key' } });
  });
  after(async () => {
    await postfix?.stop();
    await wrongKeyPostfix?.stop();
    await t?.close();
  });

  const entriesTo = (recipient: string) =>
    t.db.selectFrom('log_entries').select(['message_id', 'recipient', 'status', 'from_email', 'subject']).where('recipient', '=', recipient).execute();

  it('takes the mail Postfix relays, over TLS with AUTH, as one message to every envelope recipient', async () => {
    await inject(postfix, {
      from: 'Acme <app@sandbox.mailroom.test>',
      to: 'ann@example.com',
      bcc: 'audit@example.com',
      subject: 'Relayed by Postfix',
      text: 'Hello from the application',
      headers: { 'X-Order': '1042' },
    });
    const [entry] = await waitFor(async () => {
      const rows = await entriesTo('ann@example.com');
      return rows.length > 0 ? rows : null;
    }, 'Mailroom to log the mail Postfix relayed', { timeoutMs: 60_000 }).catch((error: Error) => {
      throw new Error(`${error.message}\n--- maillog ---\n${postfix.maillog()}`);
    });
    assert.deepEqual({ ...entry, message_id: undefined }, {
      message_id: undefined, recipient: 'ann@example.com', status: 'sent', from_email: 'app@sandbox.mailroom.test', subject: 'Relayed by Postfix',
    });
    const detail = (await t.call('GET', `/v1/messages/${entry!.message_id}`)).json().data;
    assert.deepEqual(detail.bcc, ['audit@example.com']);
    assert.deepEqual(detail.recipients.map((r: { to: string }) => r.to).sort(), ['ann@example.com', 'audit@example.com']);
    // Postfix's log names the reply: the message id Mailroom gave it, over an authenticated TLS session.
    await waitFor(() => postfix.maillog().includes(`queued as ${entry!.message_id}`), "Postfix's log of Mailroom's 250");
    assert.match(postfix.maillog(), /status=sent \(250 2\.0\.0 OK: queued as msg_/);
  });

  it("keeps the mail deferred in Postfix's queue when the key is wrong: Mailroom answers 535 5.7.8", async () => {
    await inject(wrongKeyPostfix, { from: 'app@sandbox.mailroom.test', to: 'bob@example.com', subject: 'Never', text: 'Never sent' });
    await waitFor(() => /535 5\.7\.8 Authentication credentials invalid/.test(wrongKeyPostfix.maillog()), "Postfix's log of the 535", { timeoutMs: 60_000 }).catch(
      (error: Error) => {
        throw new Error(`${error.message}\n--- maillog ---\n${wrongKeyPostfix.maillog()}`);
      },
    );
    assert.deepEqual(await entriesTo('bob@example.com'), []);
  });
});
