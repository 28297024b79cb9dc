/**
 * The `ses` provider through the real AWS SDK against a local SES v2 emulator
 * that checks every request's SigV4 signature: what is handed over (the bytes
 * Mailroom built and signed, one SendEmail per recipient, the configuration
 * set), SES's message id on the attempt, and each row of docs/ses.md's error
 * table: what becomes of the recipient, what the operator's log and metric
 * say, and what /readyz says of refused credentials.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createDeliveryWorker, type DeliveryWorker } from '../src/delivery/delivery-worker.js';
import { createProvider } from '../src/delivery/providers.js';
import { createSesProvider } from '../src/delivery/ses-provider.js';
import { storeSlots } from '../src/delivery/send-rate.js';
import type { BuiltMessage } from '../src/delivery/message-builder.js';
import type { Provider } from '../src/delivery/provider.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { sesEnv, startSesEmulator, TEST_ACCESS_KEY_ID, TEST_REGION, TEST_SECRET_ACCESS_KEY, type SesEmulator } from './helpers/ses-emulator.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { addVerifiedDomain, verifyDkim } from './helpers/verified-domain.js';
import { waitFor } from './helpers/wait-for.js';

const DOMAIN = 'ses.acme.example';
const CONFIGURATION_SET = 'mailroom-events';

// The SDK's standard credential chain reads these, as it would on a server.
process.env.AWS_ACCESS_KEY_ID = TEST_ACCESS_KEY_ID;
process.env.AWS_SECRET_ACCESS_KEY = TEST_SECRET_ACCESS_KEY;
process.env.AWS_REGION = TEST_REGION;

interface Logged {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

describe('the ses provider against the SES v2 emulator', () => {
  let emulator: SesEmulator;
  let dns: TestDnsServer;
  let t: TestApp;
  let worker: DeliveryWorker;
  let provider: Provider;
  let lines: Logged[];

  before(async () => {
    emulator = await startSesEmulator({ maxSendRate: 50 });
    dns = await startDnsServer();
    t = await createTestApp({
      ...sesEnv(emulator), SES_CONFIGURATION_SET: CONFIGURATION_SET, DNS_SERVERS: dns.address, WORKER_POLL_MS: '20',
      DELIVERY_RETRY_BASE_MS: '50', DELIVERY_RETRY_MAX_DELAY_MS: '100', RATE_LIMIT_SEND_PER_MIN: '1000',
    });
    await addVerifiedDomain(t, dns, DOMAIN);
  });
  after(async () => {
    await t?.close();
    await emulator?.close();
    await dns?.close();
  });
  beforeEach(async () => {
    lines = [];
    const log = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, fields, message });
    const logger = { info: log('info'), warn: log('warn'), error: log('error') } as never;
    provider = createProvider(t.config, t.store, logger);
    worker = createDeliveryWorker({ store: t.store, router: provider, config: t.config, returnPaths: t.returnPaths, logger });
    worker.start();
  });
  const stopWorker = async () => {
    await worker.stop();
    await provider.close();
  };

  async function send(to: string[], extra: Record<string, unknown> = {}): Promise<string> {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ from_email: `Acme <hello@${DOMAIN}>`, to, ...extra }) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.message_id;
  }
  const settled = (id: string) => waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', `the job of ${id} to finish`);
  const detailOf = async (id: string) => (await t.call('GET', `/v1/messages/${id}`)).json().data;

  it('hands over the bytes Mailroom built and signed, one SendEmail per recipient, with the configuration set; keeps SES\'s message id', async () => {
    try {
      const before = emulator.sends.length;
      const id = await send(['ada@example.com', 'bob@example.org'], { bcc: ['hidden@example.net'] });
      await settled(id);
      const sends = emulator.sends.slice(before);
      assert.equal(sends.length, 3);
      assert.deepEqual(sends.map((s) => s.destination?.ToAddresses).sort(), [['ada@example.com'], ['bob@example.org'], ['hidden@example.net']]);
      assert.ok(sends.every((s) => s.destination?.CcAddresses === undefined && s.destination?.BccAddresses === undefined));
      assert.ok(sends.every((s) => s.configurationSetName === CONFIGURATION_SET));
      assert.ok(sends.every((s) => s.fromEmailAddress === `hello@${DOMAIN}`));

      const content = (await t.call('GET', `/v1/messages/${id}/content`)).json().data;
      for (const s of sends) assert.equal(s.raw.toString('utf8'), content.raw, 'the same bytes as Mailroom built');
      assert.doesNotMatch(content.raw, /hidden@example\.net/, 'the Bcc recipient is in no header');
      const dkim = await verifyDkim(sends[0]!.raw, dns);
      assert.deepEqual(dkim.map((r) => [r.status.result, r.signingDomain]), [['pass', DOMAIN]], 'signed by Mailroom for the sender domain');

      const detail = await detailOf(id);
      const attempts = detail.recipients.flatMap((r: { attempts: { outcome: string; provider_message_id: string }[] }) => r.attempts);
      assert.deepEqual(attempts.map((a: { outcome: string }) => a.outcome), ['accepted', 'accepted', 'accepted']);
      assert.deepEqual(attempts.map((a: { provider_message_id: string }) => a.provider_message_id).sort(), sends.map((s) => s.messageId).sort());
      assert.ok(sends.every((s) => /^0100[0-9a-f]{12}-[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}-000000$/.test(s.messageId)));
      assert.deepEqual(detail.recipients.map((r: { status: string }) => r.status), ['sent', 'sent', 'sent'], 'sent until SES says more');
      assert.ok(emulator.accountReads >= 1, 'the rate was read with GetAccount');
    } finally {
      await stopWorker();
    }
  });

  it("hands each recipient of a tracked message its own copy, signed after the rewrite", async () => {
    // A worker that signs tracked addresses (beforeEach's does not: it tracks nothing).
    await stopWorker();
    const quiet = { info() {}, warn() {}, error() {} };
    provider = createProvider(t.config, t.store, quiet as never);
    worker = createDeliveryWorker({ store: t.store, router: provider, config: t.config, returnPaths: t.returnPaths, trackingKey: randomBytes(32), logger: quiet });
    worker.start();
    try {
      const before = emulator.sends.length;
      const id = await send(['ada@example.com', 'bob@example.org'], { html: '<p><a href="https://acme.example/a">A</a></p>', track_opens: true, track_clicks: true });
      await settled(id);
      const sends = emulator.sends.slice(before);
      const pixelOf = (raw: Buffer) => /\/t\/o\/([^"=\s]+)/.exec(raw.toString('utf8').replace(/=\r\n/g, ''))?.[1];
      assert.equal(sends.length, 2);
      assert.ok(sends.every((s) => pixelOf(s.raw)), 'each copy has a pixel');
      assert.notEqual(pixelOf(sends[0]!.raw), pixelOf(sends[1]!.raw), "each recipient's own");
      for (const s of sends) assert.deepEqual((await verifyDkim(s.raw, dns)).map((r) => r.status.result), ['pass']);
    } finally {
      await stopWorker();
    }
  });

  const REFUSALS = [
    { type: 'MessageRejected', status: 400, message: 'Email address is not verified. The following identities failed the check in region EU-WEST-1: hello@ses.acme.example', problem: 'sender' },
    { type: 'MailFromDomainNotVerifiedException', status: 400, message: 'The MAIL FROM domain is not verified.', problem: 'sender' },
    { type: 'AccountSuspendedException', status: 400, message: 'Your account is suspended and cannot send email.', problem: 'account' },
    { type: 'SendingPausedException', status: 400, message: 'Sending is paused for this account.', problem: 'account' },
    { type: 'NotFoundException', status: 404, message: `Configuration set <${CONFIGURATION_SET}> does not exist.`, problem: 'configuration' },
  ];
  for (const refusal of REFUSALS) {
    it(`${refusal.type} (${refusal.status}): failed with SES's message quoted, never bounced or suppressed, one log line, counted`, async () => {
      try {
        emulator.failNext(refusal, 2);
        const id = await send([`a.${refusal.type}@example.com`, `b.${refusal.type}@example.org`]);
        await settled(id);
        const entries = await t.store.logs.listSendEntries([id]);
        assert.deepEqual(entries.map((e) => e.status), ['failed', 'failed']);
        for (const e of entries) {
          assert.ok(e.error!.includes(`${refusal.type}: ${JSON.stringify(refusal.message)}`), e.error!);
          assert.match(e.error!, /^Amazon SES \(127\.0\.0\.1:\d+\) /);
        }
        assert.equal((await t.store.messageEvents.listForMessage(id)).filter((e) => e.type === 'bounced').length, 0, 'never bounced');
        for (const e of entries) assert.equal(await t.store.suppressions.find(t.workspaceId, e.recipient), undefined, 'never suppressed');
        const detail = await detailOf(id);
        assert.deepEqual(detail.recipients.map((r: { attempts: unknown[] }) => r.attempts.length), [1, 1], 'not retried');
        const logged = lines.filter((l) => l.level === 'error' && l.fields.problem === refusal.problem);
        assert.equal(logged.length, 1, JSON.stringify(lines));
        assert.equal(logged[0]!.fields.provider, 'ses');
        assert.equal(logged[0]!.fields.reply, `${refusal.type}: ${refusal.message}`);
        assert.deepEqual(worker.troubleCounts().filter((c) => c.problem === refusal.problem).map((c) => [c.provider, c.count]), [['ses', 2]]);
      } finally {
        await stopWorker();
      }
    });
  }

  const TEMPORARY = [
    { type: 'TooManyRequestsException', status: 429, message: 'Maximum sending rate exceeded.', problem: 'throttling' },
    { type: 'InternalFailure', status: 500, message: 'The request processing has failed because of an unknown error.', problem: 'service' },
  ];
  for (const answer of TEMPORARY) {
    it(`${answer.type} (${answer.status}): temporary, retried with backoff, then accepted`, async () => {
      try {
        emulator.failNext(answer, 1);
        const id = await send([`t.${answer.type}@example.com`]);
        await settled(id);
        const [recipient] = (await detailOf(id)).recipients;
        assert.deepEqual(recipient.attempts.map((a: { outcome: string }) => a.outcome), ['temporary', 'accepted']);
        assert.ok(recipient.attempts[0].reply.includes(`${answer.type}: ${JSON.stringify(answer.message)}`), recipient.attempts[0].reply);
        assert.equal(recipient.status, 'sent');
        const logged = lines.filter((l) => l.level === 'warn' && l.fields.problem === answer.problem);
        assert.equal(logged.length, 1, JSON.stringify(lines));
      } finally {
        await stopWorker();
      }
    });
  }

  it('credentials refused: failed, one auth log line, and /readyz says why until SES accepts a send again', async () => {
    try {
      assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
      emulator.setSecret('another secret entirely');
      const id = await send(['creds@example.com']);
      await settled(id);
      const [entry] = await t.store.logs.listSendEntries([id]);
      assert.equal(entry!.status, 'failed');
      assert.match(entry!.error!, /refused Mailroom's credentials .*SignatureDoesNotMatch: "The request signature we calculated does not match/);
      assert.ok(!entry!.error!.includes(TEST_SECRET_ACCESS_KEY), 'never the secret');
      assert.equal(lines.filter((l) => l.level === 'error' && l.fields.problem === 'auth').length, 1);

      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      const body = ready.json();
      assert.deepEqual(body.not_ready, ['provider']);
      assert.equal(body.status, 'not ready');
      assert.match(body.reasons.provider, /^Amazon SES \(127\.0\.0\.1:\d+\) refused Mailroom's credentials .*SignatureDoesNotMatch/);
      assert.ok(!ready.body.includes(TEST_SECRET_ACCESS_KEY));

      emulator.setSecret(TEST_SECRET_ACCESS_KEY);
      await settled(await send(['creds.again@example.com']));
      assert.deepEqual((await t.app.inject({ method: 'GET', url: '/readyz' })).json(), { status: 'ready' });
    } finally {
      emulator.setSecret(TEST_SECRET_ACCESS_KEY);
      await stopWorker();
    }
  });
});

describe('the ses provider, on its own', () => {
  let emulator: SesEmulator;
  let t: TestApp;
  before(async () => {
    emulator = await startSesEmulator({ maxSendRate: 50 });
    t = await createTestApp(sesEnv(emulator));
  });
  after(async () => {
    await t?.close();
    await emulator?.close();
  });
  const message = (to: string): BuiltMessage => ({
    messageId: 'msg_test', workspaceId: t.workspaceId, envelopes: [{ from: 'bounce@mr-bounces.acme.example', to }],
    messageIdHeader: '<msg_test@acme.example>', fromAddress: 'hello@acme.example', raw: Buffer.from('Subject: hi\r\n\r\nhello\r\n'),
  });
  const quiet = { info: () => undefined, warn: () => undefined };

  it('an endpoint that never answers is a temporary failure, not a hang', async () => {
    const provider = createSesProvider({
      settings: { ...t.config.ses, maxSendRate: 50 }, store: t.store, slots: storeSlots(t.store, 'ses-timeout-test'), logger: quiet,
      timeouts: { connectionMs: 500, requestMs: 500 },
    });
    emulator.setSilent(true);
    try {
      const [outcome] = await provider.send(message('silent@example.com'));
      assert.equal(outcome!.kind, 'temporary', outcome!.detail);
      assert.equal(outcome!.problem?.kind, 'timeout');
    } finally {
      emulator.setSilent(false);
      await provider.close();
    }
  });

  it('an access key SES does not know (UnrecognizedClientException) refuses the credentials', async () => {
    process.env.AWS_ACCESS_KEY_ID = 'AKIAUNKNOWNKEY000000';
    const provider = createSesProvider({ settings: { ...t.config.ses, maxSendRate: 50 }, store: t.store, slots: storeSlots(t.store, 'ses-key-test'), logger: quiet });
    try {
      const [outcome] = await provider.send(message('unknown.key@example.com'));
      assert.equal(outcome!.kind, 'failed');
      assert.equal(outcome!.problem?.kind, 'auth');
      assert.match(outcome!.detail, /UnrecognizedClientException: "The security token included in the request is invalid\."/);
      assert.deepEqual(emulator.refused.slice(-1), ['UnrecognizedClientException']);
      assert.match((await t.store.providerState.refusalOf('ses'))!.reason, /UnrecognizedClientException/);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = TEST_ACCESS_KEY_ID;
      await provider.close();
    }
  });

  it('GetAccount failing at start: 1 send a second, and the log says so', async () => {
    const warned: string[] = [];
    emulator.setSecret('wrong for now');
    const provider = createSesProvider({ settings: { ...t.config.ses, maxSendRate: undefined }, store: t.store, slots: storeSlots(t.store, 'ses-fallback-test'), logger: { info: () => undefined, warn: (_f: unknown, m: string) => void warned.push(m) } as never });
    try {
      await provider.send(message('fallback@example.com'));
      assert.ok(warned.some((m) => /sending at 1\/s until it can be read/.test(m)), JSON.stringify(warned));
    } finally {
      emulator.setSecret(TEST_SECRET_ACCESS_KEY);
      await provider.close();
    }
  });
});
