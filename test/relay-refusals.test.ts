/**
 * A relay refusing Mailroom itself, end to end through the API and the worker:
 * a real SMTP server answering "Relay access denied", and a real Postfix whose
 * smtpd_relay_restrictions refuse loopback. Every recipient is `failed` with
 * the relay's reply quoted; nothing is suppressed, no `bounce` entry is
 * written, `failed` (not `bounced`) events reach a real webhook receiver, and
 * the operator's log gets one line for the whole burst.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDeliveryWorker } from '../src/delivery/delivery-worker.js';
import { createSmtpProvider } from '../src/delivery/smtp-provider.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { startPostfix, type PostfixInstance } from './helpers/postfix.js';
import { startRefusingRelay, type TestRelay } from './helpers/refusing-relay.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { addVerifiedDomain } from './helpers/verified-domain.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const DOMAIN = 'refused.acme.example';

interface Logged {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

/** Runs `body` with an app whose worker (started here, logging into `lines`) relays through `smtpUrl`. */
async function withRelayingApp(smtpUrl: string, body: (t: TestApp, lines: Logged[], receiver: WebhookReceiver) => Promise<void>): Promise<void> {
  const dns: TestDnsServer = await startDnsServer();
  const receiver = await startWebhookReceiver();
  const t = await createTestApp({ DNS_SERVERS: dns.address, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '20', WORKER_POLL_MS: '20', RATE_LIMIT_SEND_PER_MIN: '1000' }, { webhooks: true });
  const lines: Logged[] = [];
  const log = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, fields, message });
  const worker = createDeliveryWorker({
    store: t.store, router: createSmtpProvider(smtpUrl), config: t.config, returnPaths: t.returnPaths,
    logger: { info: log('info'), warn: log('warn'), error: log('error') } as never,
  });
  try {
    await addVerifiedDomain(t, dns, DOMAIN);
    assert.equal((await t.call('POST', '/v1/webhooks', { body: { url: receiver.url } })).statusCode, 201);
    worker.start();
    await body(t, lines, receiver);
  } finally {
    await worker.stop();
    await t.close();
    await receiver.close();
    await dns.close();
  }
}

/** Sends `count` messages of two recipients each and waits until the worker is done with them. */
async function sendAndSettle(t: TestApp, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ from_email: `Acme <hello@${DOMAIN}>`, to: [`ada${i}@example.com`, `bob${i}@example.org`] }) });
    ids.push(res.json().data.message_id);
  }
  for (const id of ids) await waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', `the job of ${id} to finish`);
  return ids;
}

/** What a relay refusing Mailroom must and must not have caused. */
async function assertRelayRefusal(t: TestApp, ids: string[], lines: Logged[], receiver: WebhookReceiver, reply: RegExp) {
  for (const id of ids) {
    for (const entry of await t.store.logs.listSendEntries([id])) {
      assert.equal(entry.status, 'failed', `${entry.recipient}: ${entry.error}`);
      assert.match(entry.error!, /^The SMTP relay 127\.0\.0\.1:\d+ refused to relay for Mailroom \(check SMTP_URL's credentials/);
      assert.equal((await t.store.messageEvents.listForMessage(id)).filter((e) => e.type === 'bounced').length, 0);
      assert.match(entry.error!, reply);
    }
  }
  const recipients = ids.length * 2;
  assert.equal((await t.call('GET', '/v1/suppressions')).headers['x-total-count'], '0', 'nobody suppressed');
  assert.equal((await t.call('GET', '/v1/send/logs?type=bounce')).headers['x-total-count'], '0', 'no bounce entry');
  const stats = (await t.call('GET', '/v1/send/stats')).json().data;
  assert.deepEqual([stats.failed, stats.bounced], [recipients, 0]);
  const hooks = await waitFor(() => (receiver.received.length >= recipients ? receiver.received : undefined), `${recipients} webhooks`);
  const events = hooks.map((h) => JSON.parse(h.body) as { event: string; error?: string });
  assert.deepEqual([...new Set(events.map((e) => e.event))], ['failed'], 'failed events, never bounced');
  assert.ok(events.every((e) => reply.test(e.error ?? '')), 'each carries the relay\'s reply');
  // One line for the whole burst (once per problem per minute), counted every time.
  const troubleLines = lines.filter((l) => l.level === 'error' && l.fields.problem === 'relay-policy');
  assert.equal(troubleLines.length, 1, JSON.stringify(lines.map((l) => l.message)));
  assert.match(String(troubleLines[0]!.fields.reply), reply);
  assert.match(String(troubleLines[0]!.fields.host), /^127\.0\.0\.1:\d+$/);
}

describe('a relay refusing Mailroom: smtp-server answering "Relay access denied"', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startRefusingRelay({ rcptTo: (address) => ({ code: 554, text: `5.7.1 <${address}>: Relay access denied` }) });
  });
  after(() => relay.close());

  it('fails every recipient with the relay\'s reply, suppresses and bounces no one, posts failed webhooks, logs once', async () => {
    await withRelayingApp(`smtp://127.0.0.1:${relay.port}`, async (t, lines, receiver) => {
      const ids = await sendAndSettle(t, 3);
      await assertRelayRefusal(t, ids, lines, receiver, /554 5\.7\.1 <[^>]+>: Relay access denied/);
      const detail = (await t.call('GET', `/v1/messages/${ids[0]}`)).json().data;
      assert.deepEqual(detail.recipients.map((r: { attempts: { outcome: string }[] }) => r.attempts.map((a) => a.outcome)), [['failed'], ['failed']]);
    });
  });
});

describe('a relay refusing Mailroom: Postfix with smtpd_relay_restrictions refusing loopback', () => {
  let destination: SmtpSink;
  let postfix: PostfixInstance;
  before(async () => {
    destination = await startSmtpSink();
    // 127.0.0.1 is not in mynetworks: `permit_mynetworks, reject` refuses to relay for Mailroom.
    postfix = await startPostfix({ relayPort: destination.port, mynetworks: '192.0.2.0/24' });
  });
  after(async () => {
    await postfix?.stop();
    await destination?.close();
  });

  it("fails every recipient with Postfix's own words, and nothing reaches the next hop", async () => {
    await withRelayingApp(`smtp://127.0.0.1:${postfix.port}`, async (t, lines, receiver) => {
      const ids = await sendAndSettle(t, 2);
      // Postfix's own words for `reject`: they read like an unknown user, and must not be taken for one.
      await assertRelayRefusal(t, ids, lines, receiver, /554 5\.7\.1 <[^>]+>: Recipient address rejected: Access denied/);
      assert.equal(destination.received.length, 0);
    });
  });
});
