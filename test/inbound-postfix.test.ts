/**
 * Issue 5 end to end with a real Postfix: Mailroom relays through Postfix to
 * a loopback server that accepts one recipient and refuses another with 550.
 * Postfix's own reports (`relayed` for the first, a bounce for the second)
 * go, by the return path's domain, to Mailroom's inbound receiver, which
 * moves the statuses and keeps the suppression list.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { startInboundReceiver, type InboundReceiver } from '../src/inbound/inbound-receiver.js';
import { createInboundReportService } from '../src/inbound/inbound-report-service.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { freePort } from './helpers/free-port.js';
import { startPostfix, type PostfixInstance } from './helpers/postfix.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { addVerifiedDomain } from './helpers/verified-domain.js';
import { waitFor } from './helpers/wait-for.js';

const DOMAIN = 'shop.acme.example';
const silent = { info() {}, warn() {}, error() {} };

describe('bounces and deliveries reported by a real Postfix', () => {
  let dns: TestDnsServer;
  let destination: SmtpSink;
  let postfix: PostfixInstance;
  let inbound: InboundReceiver;
  let t: TestApp;

  before(async () => {
    dns = await startDnsServer();
    // No DSN at the last hop, so Postfix reports the success itself (`relayed`).
    destination = await startSmtpSink({
      dsn: false,
      policy: (address) => (address.startsWith('nobody@') ? { code: 550, text: '5.1.1 <nobody@dest.example>: Recipient address rejected: User unknown' } : undefined),
    });
    // Postfix must know where the return path's domain is received before Mailroom exists to receive it.
    const inboundPort = await freePort();
    postfix = await startPostfix({ relayPort: destination.port, transports: { [`mr-bounces.${DOMAIN}`]: `smtp:[127.0.0.1]:${inboundPort}` } });
    t = await createTestApp(
      { DNS_SERVERS: dns.address, WORKER_POLL_MS: '20', MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${postfix.port}` },
      { worker: true },
    );
    inbound = await startInboundReceiver({ port: inboundPort, host: '127.0.0.1', complaintAddress: 'complaints@mailroom.test' }, createInboundReportService(t.store, t.returnPaths).recordReceived, silent, t.returnPaths);
    await addVerifiedDomain(t, dns, DOMAIN);
  });
  after(async () => {
    await inbound?.close();
    await t?.close();
    await postfix?.stop();
    await destination?.close();
    await dns?.close();
  });

  it('shows the accepted recipient delivered, the refused one bounced with Postfix\'s diagnostic and suppressed', async () => {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ from_email: `Shop <orders@${DOMAIN}>`, to: ['ok@dest.example', 'nobody@dest.example'] }) });
    const id = res.json().data.message_id as string;
    const entry = (to: string) => t.store.logs.findSendEntry(id, to);
    const context = () => `Postfix log: ${postfix.maillog().slice(-3000)}`;

    await waitFor(async () => (await entry('ok@dest.example'))?.status === 'delivered', `ok@ delivered (${context()})`, { timeoutMs: 60_000 });
    await waitFor(async () => (await entry('nobody@dest.example'))?.status === 'bounced', `nobody@ bounced (${context()})`, { timeoutMs: 60_000 });

    const bounced = await entry('nobody@dest.example');
    assert.match(bounced!.error!, /550 5\.1\.1 <nobody@dest\.example>: Recipient address rejected: User unknown/);
    const logs = (await t.call('GET', '/v1/send/logs')).json().data.filter((e: { message_id: string }) => e.message_id === id);
    assert.deepEqual(
      logs.map((e: { type: string; status: string; to: string }) => [e.type, e.status, e.to]).sort(),
      [['bounce', 'bounced', 'nobody@dest.example'], ['send', 'bounced', 'nobody@dest.example'], ['send', 'delivered', 'ok@dest.example']],
    );
    const suppression = (await t.call('GET', '/v1/suppressions/nobody@dest.example')).json();
    assert.equal(suppression.data?.reason, 'hard_bounce', JSON.stringify(suppression));
    assert.equal(suppression.data?.source_message_id, id);
    const events = (await t.store.messageEvents.listForMessage(id)).map((e) => e.type).sort();
    assert.deepEqual(events, ['bounced', 'delivered']);

    const again = (await t.call('POST', '/v1/send', { body: sendBody({ from_email: `orders@${DOMAIN}`, to: ['nobody@dest.example'] }) })).json().data;
    assert.equal(again.status, 'suppressed');
  });

  it("refuses Alice's forged bounce for Bob, sent with the return path from her own copy, while Postfix's real reports act", async () => {
    const [alice, bob] = ['alice@dest.example', 'bob@dest.example'];
    const id = (await t.call('POST', '/v1/send', { body: sendBody({ from_email: `Shop <orders@${DOMAIN}>`, to: [alice, bob] }) })).json().data.message_id as string;
    const entry = (to: string) => t.store.logs.findSendEntry(id, to);
    await waitFor(async () => (await entry(alice))?.status === 'delivered' && (await entry(bob))?.status === 'delivered', 'both delivered (Postfix relayed)', { timeoutMs: 60_000 });

    // Alice's copy arrived with her own envelope sender: the Return-Path her mailbox shows her.
    const copy = destination.received.find((m) => m.envelope.rcptTo.some((r) => r.address === alice) && JSON.stringify(m.envelope).includes(id))!;
    const aliceReturnPath = (copy.envelope.mailFrom as { address: string }).address;
    assert.deepEqual(t.returnPaths.verify(aliceReturnPath), { ok: true, messageId: id, recipientIndex: 0 });
    const bobsCopy = destination.received.find((m) => m.envelope.rcptTo.some((r) => r.address === bob) && JSON.stringify(m.envelope).includes(id))!;
    assert.notEqual((bobsCopy.envelope.mailFrom as { address: string }).address, aliceReturnPath, 'Bob was sent from a return path of his own');

    // She writes a bounce for Bob and sends it, over SMTP, to the return path she has.
    const forged = [
      `From: MAILER-DAEMON@dest.example`, `To: ${aliceReturnPath}`, `Subject: Undelivered Mail Returned to Sender`, 'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b"', '', '--b', 'Content-Type: text/plain', '', 'Bob is gone.', '',
      '--b', 'Content-Type: message/delivery-status', '', `Original-Envelope-Id: ${id}`, 'Reporting-MTA: dns; dest.example', '',
      `Final-Recipient: rfc822; ${bob}`, 'Action: failed', 'Status: 5.1.1', `Diagnostic-Code: smtp; 550 5.1.1 <${bob}>: User unknown`, '', '--b--', '',
    ].join('\r\n');
    const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: inbound.port, secure: false, ignoreTLS: true });
    try {
      const info = await mailer.sendMail({ envelope: { from: '', to: [aliceReturnPath] }, raw: forged });
      assert.match(info.response, /^250 /, 'taken, and judged');
    } finally {
      mailer.close();
    }
    assert.equal((await entry(bob))?.status, 'delivered', 'Bob is not bounced');
    assert.equal((await t.store.suppressions.findSuppressed(t.workspaceId, [bob])).size, 0, 'nor suppressed');
    assert.ok(!(await t.store.messageEvents.listForMessage(id)).some((e) => e.type === 'bounced'), 'no bounced event');
  });
});
