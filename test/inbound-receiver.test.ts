import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { INBOUND_MAX_MESSAGE_BYTES, startInboundReceiver, type InboundReceiver } from '../src/inbound/inbound-receiver.js';
import { createInboundReportService } from '../src/inbound/inbound-report-service.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';

const silent = { info() {}, warn() {}, error() {} };
const settings = { port: 0, host: '127.0.0.1', complaintAddress: 'complaints@mailroom.test' };
const bounceFor = (id: string) =>
  readFileSync(join(import.meta.dirname, 'fixtures', 'inbound', 'postfix-bounce-verp.eml'), 'utf8').replaceAll('msg_01abc', id).replaceAll('acme.example', 'sandbox.mailroom.test');

/** Hands `raw` to the receiver as an MTA would: null sender, the given recipients. */
async function deliver(port: number, to: string[], raw: string) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    return await transport.sendMail({ envelope: { from: '', to }, raw });
  } finally {
    transport.close();
  }
}

/** One raw SMTP exchange: the lines the receiver answered, after each command. */
async function converse(port: number, commands: string[]): Promise<string[]> {
  const socket = connect(port, '127.0.0.1');
  const replies: string[] = [];
  let buffer = '';
  const next = () =>
    new Promise<string>((resolve) => {
      const tryResolve = () => {
        // A reply ends with a line whose code is followed by a space.
        const match = /(?:^|\r\n)(\d{3}) [^\r\n]*\r\n$/.exec(buffer);
        if (!match) return;
        socket.off('data', onData);
        const text = buffer;
        buffer = '';
        resolve(text);
      };
      const onData = (chunk: Buffer) => {
        buffer += chunk.toString();
        tryResolve();
      };
      socket.on('data', onData);
      tryResolve();
    });
  replies.push(await next());
  for (const command of commands) {
    socket.write(`${command}\r\n`);
    replies.push(await next());
  }
  socket.destroy();
  return replies;
}

describe('inbound SMTP receiver', () => {
  let t: TestApp;
  let receiver: InboundReceiver;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000' });
    receiver = await startInboundReceiver(settings, createInboundReportService(t.store, t.returnPaths).recordReceived, silent, t.returnPaths);
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('takes a bounce for a return path, records it before answering, and answers a repeat as such', async () => {
    const id = (await t.call('POST', '/v1/send', { body: sendBody({ to: ['grace@example.net'] }) })).json().data.message_id as string;
    const verp = t.returnPaths.sign(id, 0, 'mr-bounces.sandbox.mailroom.test');
    const first = await deliver(receiver.port, [verp], bounceFor(id));
    assert.match(first.response, /^250 2\.0\.0 Report recorded/);
    assert.equal((await t.store.logs.findSendEntry(id, 'grace@example.net'))?.status, 'bounced');
    const again = await deliver(receiver.port, [verp], bounceFor(id));
    assert.match(again.response, /^250 2\.0\.0 Report duplicate/);
  });

  it('records a bounce whose diagnostic holds a NUL, the NUL as U+FFFD, instead of refusing it for good', async () => {
    // PostgreSQL's text refuses U+0000: the report's recording failed, the receiver answered 451 to every try, and the bounce was lost.
    const id = (await t.call('POST', '/v1/send', { body: sendBody({ to: ['nul@example.net'] }) })).json().data.message_id as string;
    const verp = t.returnPaths.sign(id, 0, 'mr-bounces.sandbox.mailroom.test');
    const raw = bounceFor(id).replaceAll('grace@example.net', 'nul@example.net').replaceAll('<nul@example.net>: Recipient address', '<nul@example.net>: Recipient\u0000 address');
    assert.ok(raw.includes('Recipient\u0000 address'), 'the fixture holds the diagnostic the NUL goes into');
    assert.match((await deliver(receiver.port, [verp], raw)).response, /^250 2\.0\.0 Report recorded/);
    const entry = await t.store.logs.findSendEntry(id, 'nul@example.net');
    assert.equal(entry?.status, 'bounced');
    assert.match(entry?.error ?? '', /Recipient\uFFFD address/);
  });

  it('takes mail for the complaint address and signed return paths, refuses anyone else at RCPT saying why, and states its size limit', async () => {
    const id = 'msg_01jx9c1r7t5b2n4m6p8q0r2s4t';
    const signed = t.returnPaths.sign(id, 3, 'mr-bounces.sandbox.mailroom.test');
    const replies = await converse(receiver.port, [
      'EHLO mta.example.net',
      'MAIL FROM:<>',
      'RCPT TO:<someone@mr-bounces.sandbox.mailroom.test>',
      'RCPT TO:<postmaster@example.com>',
      'RCPT TO:<Complaints@Mailroom.test>',
      `RCPT TO:<bounce+${id}@mr-bounces.sandbox.mailroom.test>`,
      `RCPT TO:<${signed.replace(/\.\d+\./, '.4.')}>`,
      `RCPT TO:<${t.returnPaths.sign(id, 3, 'mr-bounces.sandbox.mailroom.test', Date.now() - 40 * 86_400_000)}>`,
      `RCPT TO:<${signed.toUpperCase()}>`,
      'QUIT',
    ]);
    assert.match(replies[1]!, new RegExp(`250[- ]SIZE ${INBOUND_MAX_MESSAGE_BYTES}`));
    assert.match(replies[3]!, /^550 5\.1\.1 No such recipient here/, 'a return-path host, but no return path');
    assert.match(replies[4]!, /^550 5\.1\.1 /);
    assert.match(replies[5]!, /^250 /);
    assert.match(replies[6]!, /^550 5\.7\.1 Return path refused: the return path is not signed/);
    assert.match(replies[7]!, /^550 5\.7\.1 Return path refused: the return path's tag does not match/, 'the tag signs the recipient index too');
    assert.match(replies[8]!, /^550 5\.7\.1 Return path refused: the return path expired \(signed 40 days ago; valid for 30\)/);
    assert.match(replies[9]!, /^250 /, 'an MTA that upper-cases the address changes nothing');
  });

  it('answers 451 when the report cannot be recorded, so the sending MTA keeps it and retries', async () => {
    const failing = await startInboundReceiver(settings, async () => Promise.reject(new Error('database down')), silent, t.returnPaths);
    try {
      const to = t.returnPaths.sign('msg_01jzzzzzzzzzzzzzzzzzzzzzzz', 0, 'mr-bounces.example.com');
      await assert.rejects(deliver(failing.port, [to], bounceFor('msg_01jzzzzzzzzzzzzzzzzzzzzzzz')), (error: { responseCode?: number; response?: string }) => {
        assert.equal(error.responseCode, 451);
        assert.match(error.response ?? '', /4\.3\.0 Temporary failure/);
        return true;
      });
    } finally {
      await failing.close();
    }
  });
});
