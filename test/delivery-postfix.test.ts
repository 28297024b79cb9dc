/**
 * End to end through a real Postfix (Debian's package; .ci/run installs it):
 * Mailroom's worker relays to a private Postfix instance, which relays to a
 * loopback SMTP server. The message must arrive there intact, from the
 * per-message return path, with a DKIM signature that mailauth verifies
 * against the record the API told the customer to publish.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { startPostfix, type PostfixInstance } from './helpers/postfix.js';
import { headerOf, startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { addVerifiedDomain, verifyDkim } from './helpers/verified-domain.js';
import { waitFor } from './helpers/wait-for.js';

const DOMAIN = 'news.acme.example';

describe('delivery through a real Postfix relay', () => {
  let dns: TestDnsServer;
  let destination: SmtpSink;
  let postfix: PostfixInstance;
  let t: TestApp;

  before(async () => {
    dns = await startDnsServer();
    destination = await startSmtpSink();
    postfix = await startPostfix({ relayPort: destination.port });
    t = await createTestApp(
      { MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${postfix.port}`, DNS_SERVERS: dns.address, WORKER_POLL_MS: '20' },
      { worker: true },
    );
    await addVerifiedDomain(t, dns, DOMAIN);
  });
  after(async () => {
    await t?.close();
    await postfix?.stop();
    await destination?.close();
    await dns?.close();
  });

  it('arrives at the next hop with its headers, the return path and a valid DKIM signature', async () => {
    const res = await t.call('POST', '/v1/send', {
      body: sendBody({ from_email: `Acme News <news@${DOMAIN}>`, to: ['Ada <ada@example.com>'], subject: 'Through Postfix', html: '<p>Relayed</p>', text: 'Relayed' }),
    });
    const id = res.json().data.message_id as string;
    const arrived = await waitFor(
      () => destination.received.find((m) => headerOf(m.raw, 'Message-ID') === `<${id}@${DOMAIN}>`),
      `the message at the next hop (Postfix log: ${postfix.maillog().slice(-2000)})`,
    );
    const returnPath = (arrived.envelope.mailFrom as { address: string }).address;
    assert.deepEqual([t.returnPaths.verify(returnPath), returnPath.endsWith(`@mr-bounces.${DOMAIN}`)], [{ ok: true, messageId: id, recipientIndex: 0 }, true]);
    assert.deepEqual(arrived.envelope.rcptTo.map((r) => r.address), ['ada@example.com']);
    assert.match(arrived.raw, /^Received: from /m, 'Postfix handled it');
    assert.equal(headerOf(arrived.raw, 'Subject'), 'Through Postfix');
    assert.equal(headerOf(arrived.raw, 'From'), `Acme News <news@${DOMAIN}>`);

    const [dkim] = await verifyDkim(arrived.raw, dns);
    assert.equal(dkim?.status.result, 'pass', 'the signature survives the relay and verifies against the published record');
    assert.deepEqual([dkim.signingDomain, dkim.algo], [DOMAIN, 'rsa-sha256']);

    // Postfix accepted it: an attempt, and the entry waits `sent` for the delivery report.
    await waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', 'the job to finish');
    const [attempt] = await t.store.deliveryAttempts.listForMessage(id);
    assert.deepEqual([attempt?.outcome, attempt?.provider], ['accepted', 'smtp']);
    assert.match(attempt!.detail, /^250 2\.0\.0 Ok: queued as /);
    assert.equal((await t.store.logs.findSendEntry(id, 'ada@example.com'))?.status, 'sent');
  });
});
