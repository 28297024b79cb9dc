/**
 * Proves test/helpers/postfix.ts with real parts only: Nodemailer submits to a
 * private Postfix, which relays to one loopback smtp-server (the next hop) and
 * routes its own DSNs for bounces.example.test to another (the "inbound"
 * receiver, where Mailroom's bounce processing would listen).
 *
 * What Postfix reports, per RFC 3461 and Postfix's smtp client:
 * - a refused recipient (550 at RCPT) always comes back as a failure DSN
 *   ("Action: failed") to the envelope sender;
 * - on success, a next hop that announces DSN is handed NOTIFY/ORCPT/ENVID/RET
 *   and Postfix stays silent (the last DSN-aware hop reports "delivered");
 *   a next hop without DSN makes Postfix report success itself, as
 *   "Action: relayed". Postfix's smtp transport never says "delivered".
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import nodemailer from 'nodemailer';
import { SMTPServer, type SMTPServerEnvelope } from 'smtp-server';
import { startPostfix, type PostfixInstance } from './helpers/postfix.js';

const WAIT_MS = 30_000;
const SENDER = 'bounce+msg_1@bounces.example.test';
const OK = 'ok@dest.test';
const NOBODY = 'nobody@dest.test';

interface Received {
  envelope: SMTPServerEnvelope;
  raw: string;
}

interface Receiver {
  port: number;
  received: Received[];
  /** The first message (already received or still to come) that matches, or a rejection after WAIT_MS saying what did arrive. */
  waitFor(what: string, match: (message: Received) => boolean, context: () => string): Promise<Received>;
  close(): Promise<void>;
}

/** A loopback smtp-server that keeps every message; answers 550 to nobody@dest.test. */
async function startReceiver(name: string, options: { announceDsn: boolean }): Promise<Receiver> {
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    hideDSN: !options.announceDsn,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address === NOBODY) return callback(Object.assign(new Error('5.1.1 <' + NOBODY + '>: user unknown'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({ envelope: structuredClone(session.envelope), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
        for (const wake of waiters) wake();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as { port: number };

  const waitFor: Receiver['waitFor'] = (what, match, context) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = received.find(match);
        if (!found) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        const got = received.map((m) => `  MAIL FROM:<${m.envelope.mailFrom ? m.envelope.mailFrom.address : '?'}> RCPT TO:${m.envelope.rcptTo.map((r) => `<${r.address}>`).join(',')} ${header(m.raw, 'subject') ?? ''}`);
        reject(new Error(`${name} (127.0.0.1:${port}) got no ${what} within ${WAIT_MS} ms; it got ${received.length} message(s)${got.length ? ':\n' + got.join('\n') : ''}\n${context()}`));
      }, WAIT_MS);
      waiters.add(check);
      check();
    });

  return { port, received, waitFor, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** An unfolded header of a message's (or MIME part's) header block: the first one from the top. */
function header(raw: string, name: string, from = 0): string | undefined {
  const block = raw.slice(from).split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = block.replace(/\r?\n[ \t]+/g, ' ');
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(name.toLowerCase() + ':'));
  return line?.slice(name.length + 1).trim();
}

/** Runs `body` against a fresh Postfix relaying to a next hop (with or without DSN) and an inbound receiver for its DSNs. */
async function withRelay(
  announceDsn: boolean,
  body: (parts: { postfix: PostfixInstance; nextHop: Receiver; inbound: Receiver; send(messageId: string, subject: string): Promise<void>; logs: () => string }) => Promise<void>,
): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const nextHop = await startReceiver('the next hop', { announceDsn });
    cleanups.push(() => nextHop.close());
    const inbound = await startReceiver('the inbound receiver', { announceDsn: true });
    cleanups.push(() => inbound.close());
    const postfix = await startPostfix({ relayPort: nextHop.port, transports: { 'bounces.example.test': `smtp:[127.0.0.1]:${inbound.port}` } });
    cleanups.push(() => postfix.stop());
    const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: postfix.port, secure: false, ignoreTLS: true, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
    cleanups.push(async () => mailer.close());
    const logs = () => `--- Postfix maillog (${postfix.dir}) ---\n${postfix.maillog().trimEnd().split('\n').slice(-30).join('\n')}`;

    const send = async (messageId: string, subject: string) => {
      const info = await mailer.sendMail({
        envelope: { from: SENDER, to: [OK, NOBODY] },
        from: 'Acme <hello@acme.example>',
        to: [OK, NOBODY],
        subject,
        text: 'Hello there',
        messageId,
        dsn: { id: 'env-1', return: 'headers', notify: ['success', 'failure'] },
      });
      // Postfix relays for 127.0.0.0/8, so it takes both; the next hop's 550 becomes a bounce.
      assert.deepEqual([...info.accepted].sort(), [NOBODY, OK], `Postfix took ${JSON.stringify(info.accepted)}, refused ${JSON.stringify(info.rejected)}`);
    };
    await body({ postfix, nextHop, inbound, send, logs });
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
}

/** The checks every Postfix DSN here passes: a multipart/report from the null sender to SENDER about env-1. */
function assertDsn(dsn: Received, recipient: string, action: string, messageId: string) {
  assert.equal(dsn.envelope.mailFrom && dsn.envelope.mailFrom.address, '', 'a DSN comes from the null sender');
  assert.deepEqual(dsn.envelope.rcptTo.map((r) => r.address), [SENDER]);
  assert.match(header(dsn.raw, 'to') ?? '', /bounce\+msg_1@bounces\.example\.test/);
  assert.match(header(dsn.raw, 'content-type') ?? '', /^multipart\/report;.*report-type=delivery-status/i);
  assert.match(dsn.raw, /^Original-Envelope-Id: env-1\r?$/m);
  assert.match(dsn.raw, new RegExp(`^Final-Recipient: rfc822; ?${recipient.replace(/[.+]/g, '\\$&')}\\r?$`, 'mi'));
  assert.match(dsn.raw, new RegExp(`^Action: ${action}\\r?$`, 'm'));
  // RET=HDRS: the original headers come back (text/rfc822-headers), so the DSN can be matched to the message.
  assert.match(dsn.raw, /Content-Type: text\/rfc822-headers/i);
  assert.ok(dsn.raw.includes(`Message-ID: ${messageId}`), `the DSN returns the original Message-ID ${messageId}`);
}

test('Postfix relays to a DSN-aware next hop with the DSN request, and bounces a refused recipient to the inbound receiver', async () => {
  await withRelay(true, async ({ nextHop, inbound, send, logs }) => {
    const messageId = `<relay-dsn-${Date.now()}@acme.example>`;
    const subject = 'Hello via Postfix (DSN-aware next hop)';
    await send(messageId, subject);

    const relayed = await nextHop.waitFor(`message for ${OK}`, (m) => m.envelope.rcptTo.some((r) => r.address === OK), logs);
    assert.equal(header(relayed.raw, 'message-id'), messageId);
    assert.equal(header(relayed.raw, 'subject'), subject);
    assert.equal(relayed.envelope.mailFrom && relayed.envelope.mailFrom.address, SENDER);
    assert.deepEqual(relayed.envelope.rcptTo.map((r) => r.address), [OK], 'the refused recipient is not in the accepted envelope');
    // Postfix hands the DSN request on to a next hop that announces DSN.
    assert.deepEqual(relayed.envelope.dsn, { ret: 'HDRS', envid: 'env-1' });
    assert.deepEqual(relayed.envelope.rcptTo[0]?.dsn?.notify, ['SUCCESS', 'FAILURE']);
    assert.match(relayed.envelope.rcptTo[0]?.dsn?.orcpt ?? '', /^rfc822;ok@dest\.test$/i);

    const bounce = await inbound.waitFor(`failure DSN for ${NOBODY}`, (m) => /^Action: failed\r?$/m.test(m.raw), logs);
    assertDsn(bounce, NOBODY, 'failed', messageId);
    assert.match(bounce.raw, /^Status: 5\.\d+\.\d+\r?$/m);
    assert.match(bounce.raw, /^Diagnostic-Code: smtp; ?550/m);
  });
});

test('Postfix reports success itself ("relayed") when the next hop has no DSN, and bounces a refused recipient', async () => {
  await withRelay(false, async ({ nextHop, inbound, send, logs }) => {
    const messageId = `<relay-nodsn-${Date.now()}@acme.example>`;
    const subject = 'Hello via Postfix (next hop without DSN)';
    await send(messageId, subject);

    const relayed = await nextHop.waitFor(`message for ${OK}`, (m) => m.envelope.rcptTo.some((r) => r.address === OK), logs);
    assert.equal(header(relayed.raw, 'message-id'), messageId);
    assert.equal(header(relayed.raw, 'subject'), subject);
    assert.equal(relayed.envelope.dsn, undefined, 'no DSN parameters go to a next hop that does not announce DSN');

    const [success, bounce] = await Promise.all([
      inbound.waitFor(`success DSN for ${OK}`, (m) => /^Action: relayed\r?$/m.test(m.raw), logs),
      inbound.waitFor(`failure DSN for ${NOBODY}`, (m) => /^Action: failed\r?$/m.test(m.raw), logs),
    ]);
    assertDsn(success, OK, 'relayed', messageId);
    assert.match(success.raw, /^Status: 2\.\d+\.\d+\r?$/m);
    assertDsn(bounce, NOBODY, 'failed', messageId);
    assert.match(bounce.raw, /^Status: 5\.\d+\.\d+\r?$/m);
  });
});
