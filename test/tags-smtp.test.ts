/**
 * Tags in webhook payloads (issue 16, point 4): a tagged send delivered
 * through a real SMTP relay on loopback, its outcomes (a refusal at RCPT, and
 * delivery reports handed to the real inbound SMTP receiver) posted to a real
 * HTTP receiver, each body carrying the message's `tags` as an object.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { Webhook } from 'standardwebhooks';
import { startInboundReceiver, type InboundReceiver } from '../src/inbound/inbound-receiver.js';
import { createInboundReportService } from '../src/inbound/inbound-report-service.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { addVerifiedDomain } from './helpers/verified-domain.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const DOMAIN = 'mail.acme.example';
const ENV = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WORKER_POLL_MS: '20',
  DELIVERY_RETRY_BASE_MS: '20',
  RATE_LIMIT_SEND_PER_MIN: '100000',
  RATE_LIMIT_OTHER_PER_MIN: '100000',
};
const FIXTURES = join(import.meta.dirname, 'fixtures', 'inbound');
const TAGS = { plan: 'pro', order_id: 'ord-42' };

/** A fixture report about `messageId`, as a relay would send it back. */
const report = (fixture: string, messageId: string) => readFileSync(join(FIXTURES, fixture), 'utf8').replaceAll('msg_01abc', messageId);

describe('tags in webhook payloads, through a real SMTP relay and the inbound SMTP receiver', () => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let hooks: WebhookReceiver;
  let inbound: InboundReceiver;
  let t: TestApp;
  let secret: string;

  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink({
      policy: (address) => (address.startsWith('nobody') ? { code: 550, text: `5.1.1 <${address}>: Recipient address rejected: User unknown` } : undefined),
    });
    hooks = await startWebhookReceiver();
    const env = { MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${sink.port}`, DNS_SERVERS: dns.address, ...ENV };
    t = await createTestApp(env, { worker: true, webhooks: true });
    await addVerifiedDomain(t, dns, DOMAIN);
    const silent = { info() {}, warn() {}, error() {} };
    const settings = { port: 0, host: '127.0.0.1', complaintAddress: 'complaints@mailroom.test' };
    inbound = await startInboundReceiver(settings, createInboundReportService(t.store, t.returnPaths).recordReceived, silent, t.returnPaths);
    const created = await t.call('POST', '/v1/webhooks', { body: { url: hooks.url } });
    assert.equal(created.statusCode, 201, created.body);
    secret = created.json().data.secret;
  });
  after(async () => {
    await inbound.close();
    await t.close();
    await hooks.close();
    await sink.close();
    await dns.close();
  });

  /** Hands a report to the inbound receiver as an MTA would: null sender, to the return path the relay saw. */
  async function returnReport(raw: string, returnPath: string): Promise<void> {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: inbound.port, secure: false, ignoreTLS: true });
    try {
      const sent = await transport.sendMail({ envelope: { from: '', to: [returnPath] }, raw });
      assert.match(sent.response, /^250 2\.0\.0 Report recorded/);
    } finally {
      transport.close();
    }
  }

  it('posts delivered and bounced events carrying the tags as an object, signed as any other', async () => {
    const res = await t.call('POST', '/v1/send', {
      body: sendBody({
        from_email: `Acme <hello@${DOMAIN}>`,
        to: ['ada@example.com', 'grace@example.net', 'nobody@example.net'],
        tags: Object.entries(TAGS).map(([name, value]) => ({ name, value })),
      }),
    });
    assert.equal(res.json().data?.status, 'sent', res.body);
    const id = res.json().data.message_id as string;
    await waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', `the job of ${id} to finish`);

    // The relay took ada and grace (their entries stay `sent`) and refused nobody at RCPT (bounced at once).
    const returnPathOf = (to: string) => {
      const copy = sink.received.find((m) => m.envelope.rcptTo.some((r) => r.address === to) && m.raw.includes(`<${id}@${DOMAIN}>`));
      return (copy!.envelope.mailFrom as { address: string }).address;
    };
    // Later the recipients' servers report back: ada's delivered, grace's a hard bounce.
    await returnReport(report('postfix-relayed-success.eml', id), returnPathOf('ada@example.com'));
    await returnReport(report('postfix-bounce-verp.eml', id), returnPathOf('grace@example.net'));

    const mine = () => hooks.received.filter((h) => JSON.parse(h.body).message_id === id);
    await waitFor(() => mine().length === 3, 'three events at the receiver (delivered, bounced twice)');
    const verifier = new Webhook(secret);
    const bodies = mine().map((h) => verifier.verify(h.body, h.headers as Record<string, string>) as Record<string, unknown>);
    const byRecipient = Object.fromEntries(bodies.map((b) => [b.to as string, b]));
    assert.deepEqual(
      Object.entries(byRecipient).map(([to, b]) => [to, b.event, b.tags]).sort(),
      [
        ['ada@example.com', 'delivered', TAGS],
        ['grace@example.net', 'bounced', TAGS],
        ['nobody@example.net', 'bounced', TAGS],
      ],
    );
    // SPEC.md §6.2's fields stay as they were beside `tags`.
    const delivered = byRecipient['ada@example.com']!;
    assert.deepEqual(Object.keys(delivered).sort(), ['event', 'from', 'id', 'message_id', 'subject', 'tags', 'timestamp', 'to', 'workspace_id']);
    assert.deepEqual(Object.keys(delivered.tags as object), ['plan', 'order_id'], 'in request order');
    const bounced = byRecipient['grace@example.net']!;
    assert.deepEqual([bounced.bounce_type, bounced.bounce_subtype], ['Permanent', 'NoEmail']);
    assert.match(bounced.diagnostic_code as string, /^550 5\.1\.1 <grace@example\.net>/);

    // The log shows the same: the send entries and grace's bounce entry, all with the tags, found by them.
    const logs = (await t.call('GET', '/v1/send/logs?tag=order_id:ord-42')).json().data as { type: string; status: string; to: string; tags: object }[];
    assert.deepEqual(
      logs.map((e) => [e.type, e.status, e.to, e.tags]).sort(),
      [
        ['bounce', 'bounced', 'grace@example.net', TAGS],
        ['send', 'bounced', 'grace@example.net', TAGS],
        ['send', 'bounced', 'nobody@example.net', TAGS],
        ['send', 'delivered', 'ada@example.com', TAGS],
      ],
    );
  });
});
