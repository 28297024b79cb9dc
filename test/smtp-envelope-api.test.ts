import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { addVerifiedDomain } from './helpers/verified-domain.js';
import { waitFor } from './helpers/wait-for.js';

const DOMAIN = 'mail.acme.example';
const FAST = { DELIVERY_RETRY_BASE_MS: '20', DELIVERY_MAX_ATTEMPTS: '5', WORKER_POLL_MS: '20', RATE_LIMIT_SEND_PER_MIN: '100000' };

describe('a send through the API to a relay that does not announce SMTPUTF8, with SMTP_SMTPUTF8=true', () => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let t: TestApp;

  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink({ smtputf8: false });
    const env = { MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${sink.port}`, SMTP_SMTPUTF8: 'true', DNS_SERVERS: dns.address, ...FAST };
    t = await createTestApp(env, { worker: true });
    await addVerifiedDomain(t, dns, DOMAIN);
  });
  after(async () => {
    await t.close();
    await sink.close();
    await dns.close();
  });

  it('sends the IDN recipient in A-labels, as logged, and fails the non-ASCII local part with the reason, unsent', async () => {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ from_email: `Acme <hello@${DOMAIN}>`, to: ['leser@bücher.example', 'jörg@example.com'] }) });
    assert.equal(res.json().data?.status, 'sent', res.body);
    const id = res.json().data.message_id as string;
    await waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', `the job of ${id} to finish`);

    const entries = (await t.call('GET', '/v1/send/logs')).json().data as Array<{ message_id: string; to: string; status: string; error: string | null }>;
    const mine = new Map(entries.filter((e) => e.message_id === id).map((e) => [e.to, e]));
    assert.deepEqual([...mine.keys()].sort(), ['jörg@example.com', 'leser@xn--bcher-kva.example']);
    assert.equal(mine.get('leser@xn--bcher-kva.example')!.status, 'sent', 'handed over; the relay reports delivery later');
    assert.deepEqual([mine.get('jörg@example.com')!.status, mine.get('jörg@example.com')!.error], [
      'failed',
      `Not sent: the SMTP relay 127.0.0.1:${sink.port} does not announce SMTPUTF8 (RFC 6531), which an address with a non-ASCII local part needs (check the relay's settings and SMTP_SMTPUTF8)`,
    ]);

    // As the relay received them: the logged address, byte for byte, and nothing at all for the other.
    const rcpt = sink.commands.filter((c) => c.line.startsWith('RCPT TO:')).map((c) => c.line);
    assert.ok(rcpt.includes('RCPT TO:<leser@xn--bcher-kva.example> NOTIFY=SUCCESS,FAILURE,DELAY'), JSON.stringify(rcpt));
    assert.ok(!sink.commands.some((c) => c.line.includes('jörg')), 'no RCPT TO for jörg');
    const mailFroms = sink.commands.filter((c) => c.line.startsWith('MAIL FROM:') && c.line.includes(id));
    assert.equal(mailFroms.length, 1, 'one MAIL FROM for the message: the IDN recipient\'s');
    assert.equal((await t.call('GET', '/v1/suppressions')).headers['x-total-count'], '0', 'nobody suppressed');
  });
});
