import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SMTPServer, type SMTPServerEnvelope } from 'smtp-server';
import { buildMessage, type BuiltMessage } from '../src/delivery/message-builder.js';
import { createSmtpProvider } from '../src/delivery/smtp-provider.js';
import type { Provider } from '../src/delivery/provider.js';
import { newId, nowIso } from '../src/lib/ids.js';
import { generateDkimKeyPair } from '../src/domains/dkim-keys.js';
import { freePort } from './helpers/free-port.js';
import { startSmtpSink } from './helpers/smtp-sink.js';

/** A real SMTP server on loopback: refuses `unknown…` recipients with 550 and `busy…` ones with 451, keeps the rest. */
const startRelay = () =>
  startSmtpSink({
    policy(address) {
      if (address.startsWith('unknown')) return { code: 550, text: '5.1.1 <' + address + '>: user unknown' };
      if (address.startsWith('busy')) return { code: 451, text: '4.2.1 mailbox busy, try later' };
      return undefined;
    },
  });

describe('SMTP provider', () => {
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let provider: Provider;
  let domain: { domain: string; return_path_domain: string; dkim_selector: string; dkim_private_key: string };

  before(async () => {
    relay = await startRelay();
    provider = createSmtpProvider(`smtp://127.0.0.1:${relay.port}`);
    const keys = await generateDkimKeyPair();
    domain = { domain: 'acme.example', return_path_domain: 'mr-bounces.acme.example', dkim_selector: 'mrtest', dkim_private_key: keys.privateKeyPem };
  });
  after(async () => {
    await provider.close();
    await relay.close();
  });

  const message = (to: string[], id = newId('msg')): Promise<BuiltMessage> =>
    buildMessage(
      {
        id,
        workspace_id: 'ws_test',
        from_name: 'Acme',
        from_address: 'hello@acme.example',
        reply_to: null,
        subject: 'Hello',
        html: null,
        text: 'Hello there',
        recipients: JSON.stringify(to.map((address) => ({ name: '', address }))), cc: null, bcc: null, headers: null, tags: null, scheduled_at: null, content_expired_at: null, template_id: null, template_version: null, track_opens: 0, track_clicks: 0,
        created_at: nowIso(),
      },
      domain,
      to.map((address, index) => ({ from: `bounce+${id}.${index}@mr-bounces.acme.example`, to: address })),
    );

  it('hands the signed message over to each recipient in a transaction of its own, from its own return path, with a DSN request', async () => {
    const built = await message(['ada@example.com', 'bob@example.org']);
    const before = relay.received.length;
    const outcomes = await provider.send(built);
    assert.deepEqual(outcomes.map((o) => [o.recipient, o.kind]), [['ada@example.com', 'accepted'], ['bob@example.org', 'accepted']]);
    assert.match(outcomes[0]!.detail, /^250 /);
    assert.ok(outcomes.every((o) => Number.isInteger(o.durationMs) && o.durationMs! >= 0), 'each transaction timed');
    const got = relay.received.slice(before).sort((a, b) => a.envelope.rcptTo[0]!.address.localeCompare(b.envelope.rcptTo[0]!.address));
    assert.deepEqual(
      got.map((m) => [m.envelope.mailFrom && m.envelope.mailFrom.address, m.envelope.rcptTo.map((r) => r.address)]),
      built.envelopes.map((e) => [e.from, [e.to]]),
    );
    for (const { envelope, raw } of got) {
      const dsn = (envelope as SMTPServerEnvelope & { dsn?: { envid?: string; ret?: string } }).dsn;
      assert.deepEqual([dsn?.envid, dsn?.ret], [built.messageId, 'HDRS']);
      const notify = (envelope.rcptTo[0] as { dsn?: { notify?: string[] } }).dsn?.notify;
      assert.deepEqual(notify, ['SUCCESS', 'FAILURE', 'DELAY']);
      assert.equal(raw, built.raw.toString('utf8'), 'the built message, as built, to each');
    }
  });

  it('classifies each recipient: a 550 is permanent, a 451 temporary, the rest delivered', async () => {
    const built = await message(['ada@example.com', 'unknown@example.com', 'busy@example.com']);
    const outcomes = await provider.send(built);
    assert.deepEqual(outcomes.map((o) => [o.recipient, o.kind]), [
      ['ada@example.com', 'accepted'],
      ['unknown@example.com', 'permanent'],
      ['busy@example.com', 'temporary'],
    ]);
    assert.match(outcomes[1]!.detail, /^550 5\.1\.1 <unknown@example\.com>: user unknown/);
    assert.match(outcomes[2]!.detail, /^451 4\.2\.1 mailbox busy/);
    assert.deepEqual(relay.received.at(-1)!.envelope.rcptTo.map((r) => r.address), ['ada@example.com']);
  });

  it('gives each recipient its own reply when every one is refused', async () => {
    const outcomes = await provider.send(await message(['unknown@example.com', 'busy@example.com']));
    assert.deepEqual(outcomes.map((o) => [o.recipient, o.kind]), [['unknown@example.com', 'permanent'], ['busy@example.com', 'temporary']]);
  });

  it('calls a relay that cannot be reached a temporary failure for everyone', async () => {
    // A port that was free a moment ago: nothing listens there.
    const down = createSmtpProvider(`smtp://127.0.0.1:${await freePort()}`);
    try {
      const outcomes = await down.send(await message(['ada@example.com', 'bob@example.org']));
      assert.deepEqual(outcomes.map((o) => o.kind), ['temporary', 'temporary']);
      assert.match(outcomes[0]!.detail, /ECONNREFUSED/);
    } finally {
      await down.close();
    }
  });

  it('calls refused credentials or a refused sender a failure of the configuration, not of the recipient', async () => {
    const strict = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, callback) {
        if (auth.username === 'right') return callback(null, { user: 'right' });
        callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
      },
      onMailFrom(_address, _session, callback) {
        callback(Object.assign(new Error('5.7.1 Sender address rejected: not owned by user'), { responseCode: 553 }));
      },
    });
    strict.listen(0, '127.0.0.1');
    await once(strict.server, 'listening');
    const { port } = strict.server.address() as { port: number };
    const wrong = createSmtpProvider(`smtp://wrong:secret@127.0.0.1:${port}`);
    const right = createSmtpProvider(`smtp://right:secret@127.0.0.1:${port}`);
    try {
      const refused = await wrong.send(await message(['ada@example.com']));
      assert.equal(refused[0]!.kind, 'failed');
      assert.match(refused[0]!.detail, /^The SMTP relay 127\.0\.0\.1:\d+ refused Mailroom's credentials \(check SMTP_URL\): "535 5\.7\.8 Authentication credentials invalid"/);
      const sender = await right.send(await message(['ada@example.com']));
      assert.equal(sender[0]!.kind, 'failed');
      assert.match(sender[0]!.detail, /^The SMTP relay 127\.0\.0\.1:\d+ refused the sender .*553 5\.7\.1 Sender address rejected/);
    } finally {
      await wrong.close();
      await right.close();
      await new Promise<void>((resolve) => strict.close(() => resolve()));
    }
  });

  it('upgrades to TLS with STARTTLS when the relay offers it, and checks the certificate', async () => {
    const fixtures = join(import.meta.dirname, 'fixtures', 'tls');
    const cert = readFileSync(join(fixtures, 'relay-cert.pem'), 'utf8');
    let secure: boolean | undefined;
    const tlsRelay = new SMTPServer({
      authOptional: true,
      logger: false,
      key: readFileSync(join(fixtures, 'relay-key.pem')),
      cert,
      onData(stream, session, callback) {
        secure = session.secure;
        stream.resume();
        stream.on('end', () => callback());
      },
    });
    tlsRelay.listen(0, '127.0.0.1');
    await once(tlsRelay.server, 'listening');
    const { port } = tlsRelay.server.address() as { port: number };
    const trusting = createSmtpProvider(`smtp://127.0.0.1:${port}`, { tls: { ca: cert } });
    const doubting = createSmtpProvider(`smtp://127.0.0.1:${port}`);
    try {
      const [ok] = await trusting.send(await message(['ada@example.com']));
      assert.equal(ok!.kind, 'accepted');
      assert.equal(secure, true, 'the message went over the upgraded connection');
      // A certificate the system does not trust is not accepted silently: the hand-over waits (temporary).
      const [refused] = await doubting.send(await message(['ada@example.com']));
      assert.equal(refused!.kind, 'temporary');
      assert.match(refused!.detail, /self[- ]signed certificate/);
    } finally {
      await trusting.close();
      await doubting.close();
      await new Promise<void>((resolve) => tlsRelay.close(() => resolve()));
    }
  });
});
