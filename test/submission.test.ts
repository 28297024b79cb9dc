/**
 * SMTP submission (SUBMISSION_PORT): Nodemailer as the application's client,
 * over STARTTLS with the generated self-signed certificate, against the real
 * app with its delivery worker (sandbox provider). A message submitted by SMTP
 * must come out exactly like the same message sent to POST /v1/send, and every
 * refusal must answer its SMTP code.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import pino from 'pino';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { ConfigError, loadConfig } from '../src/config.js';
import { openRuntime } from '../src/server.js';
import { SEND_MEMORY_BUDGET } from '../src/sending/send-memory.js';
import { startSubmissionServer, SUBMISSION_MAX_MESSAGE_BYTES, type SubmissionServer } from '../src/submission/submission-server.js';
import { selfSignedCertificate } from '../src/submission/tls-certificate.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { parseMetrics, valueOf } from './helpers/metrics-text.js';
import { waitFor } from './helpers/wait-for.js';

/** Sends one message as an application would: STARTTLS required, then AUTH. */
async function submit(port: number, pass: string, mail: SendMailOptions, options: Partial<SMTPTransport.Options> = {}) {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: 'mailroom', pass },
    ...options,
  });
  try {
    return await transport.sendMail(mail);
  } finally {
    transport.close();
  }
}

/** The SMTP reply a refused submission got: `550 5.7.1 …`. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => assert.fail('the submission was accepted'),
    (e: { response?: string; responseCode?: number }) => e,
  );
  assert.ok(error.response, `no SMTP reply: ${String(error)}`);
  return error.response;
}

const queuedId = (response: string) => {
  const match = /^250 2\.0\.0 OK: queued as (msg_\S+)$/.exec(response);
  assert.ok(match, response);
  return match[1]!;
};

const pdf = randomBytes(30_000);
const png = randomBytes(2_000);

describe('SMTP submission', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000', WORKER_POLL_MS: '20' }, { worker: true, submission: true });
    port = t.submission!.port;
  });
  after(() => t.close());

  const detailOf = async (id: string) => {
    await waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', `the job of ${id} to finish`);
    const res = await t.call('GET', `/v1/messages/${id}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data;
  };
  const logsOf = async (id: string) => (await t.call('GET', `/v1/send/logs?message_id=${id}`)).json().data as Record<string, unknown>[];
  const attachmentBytes = async (id: string) =>
    (await t.db.selectFrom('message_attachments').select(['filename', 'content']).where('message_id', '=', id).orderBy('position').execute()).map((row) => [
      row.filename,
      Buffer.from(row.content as Uint8Array).toString('base64'),
    ]);
  /** What two sends have in common when they are the same send: everything but ids and times. */
  const comparable = (detail: Record<string, unknown>) =>
    JSON.parse(JSON.stringify(detail, (key, value) => (['id', 'created_at', 'at', 'updated_at', 'duration_ms', 'message_id'].includes(key) ? undefined : value)));

  it('takes a message with Cc, Bcc, Reply-To, a custom header and attachments exactly as POST /v1/send takes the same send', async () => {
    const html = '<p>Your <b>invoice</b> <img src="cid:logo"></p>';
    const text = 'Your invoice\nis attached.';
    const info = await submit(port, t.apiKey, {
      from: 'Acme Billing <billing@sandbox.mailroom.test>',
      to: 'Ann <ann@example.com>, bob@example.com',
      cc: 'Carol <carol@example.com>',
      bcc: 'hidden@example.com',
      replyTo: 'Help Desk <help@example.com>',
      subject: 'Invoice 42',
      html,
      text,
      headers: { 'X-Campaign': 'spring' },
      attachments: [
        { filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' },
        { filename: 'logo.png', content: png, contentType: 'image/png', cid: 'logo' },
      ],
    });
    const smtpId = queuedId(info.response);
    assert.deepEqual(info.accepted.sort(), ['ann@example.com', 'bob@example.com', 'carol@example.com', 'hidden@example.com']);

    const http = await t.call('POST', '/v1/send', {
      body: {
        from_email: 'Acme Billing <billing@sandbox.mailroom.test>',
        to: ['Ann <ann@example.com>', 'bob@example.com'],
        cc: ['Carol <carol@example.com>'],
        bcc: ['hidden@example.com'],
        reply_to: 'Help Desk <help@example.com>',
        subject: 'Invoice 42',
        html,
        text,
        headers: { 'X-Campaign': 'spring' },
        // In the message's MIME order: Nodemailer puts the inline image (multipart/related, beside the HTML) first.
        attachments: [
          { filename: 'logo.png', content: png.toString('base64'), content_type: 'image/png', content_id: 'logo' },
          { filename: 'invoice.pdf', content: pdf.toString('base64'), content_type: 'application/pdf' },
        ],
      },
    });
    assert.equal(http.statusCode, 200, http.body);
    const httpId = http.json().data.message_id as string;

    const [smtpDetail, httpDetail] = [await detailOf(smtpId), await detailOf(httpId)];
    assert.deepEqual(comparable(smtpDetail), comparable(httpDetail));
    assert.deepEqual(smtpDetail.bcc, ['hidden@example.com']);
    assert.equal(smtpDetail.recipients.length, 4);
    assert.ok(smtpDetail.recipients.every((r: { status: string }) => r.status === 'delivered'), JSON.stringify(smtpDetail.recipients));

    assert.deepEqual((await logsOf(smtpId)).map(comparable), (await logsOf(httpId)).map(comparable));
    assert.deepEqual(await attachmentBytes(smtpId), [['logo.png', png.toString('base64')], ['invoice.pdf', pdf.toString('base64')]]);
    assert.deepEqual(await attachmentBytes(smtpId), await attachmentBytes(httpId));

    const smtpContent = (await t.call('GET', `/v1/messages/${smtpId}/content`)).json().data;
    const httpContent = (await t.call('GET', `/v1/messages/${httpId}/content`)).json().data;
    assert.equal(smtpContent.html, html);
    assert.equal(smtpContent.text, text);
    assert.equal(smtpContent.html, httpContent.html);
    assert.equal(smtpContent.text, httpContent.text);
    // The MIME handed over: the custom header kept, the Bcc recipient in no header.
    assert.match(smtpContent.raw, /^X-Campaign: spring\r$/m);
    assert.doesNotMatch(smtpContent.raw, /hidden@example\.com/);
  });
});

/** One plain-text SMTP exchange (no TLS): the greeting, then the reply to each command, in order. */
async function converse(port: number, commands: (string | Buffer)[]): Promise<string[]> {
  const socket = connect(port, '127.0.0.1');
  let buffer = '';
  let wake = () => {};
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    wake();
  });
  const next = async () => {
    // A reply ends with a line whose code is followed by a space.
    while (!/(?:^|\r\n)\d{3} [^\r\n]*\r\n$/.test(buffer)) await new Promise<void>((resolve) => (wake = resolve));
    const reply = buffer.trimEnd();
    buffer = '';
    return reply;
  };
  const replies = [await next()];
  for (const command of commands) {
    socket.write(typeof command === 'string' ? `${command}\r\n` : command);
    replies.push(await next());
  }
  socket.destroy();
  return replies;
}

const plain = (user: string, pass: string) => Buffer.from(`\0${user}\0${pass}`).toString('base64');

describe('SMTP submission refusals', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000' }, { submission: true });
    port = t.submission!.port;
  });
  after(() => t.close());

  const mail = (overrides: SendMailOptions = {}): SendMailOptions => ({
    from: 'hello@sandbox.mailroom.test',
    to: 'ann@example.com',
    subject: 'Hello',
    text: 'Hello there',
    ...overrides,
  });
  const entriesOf = async (id: string) =>
    (await t.db.selectFrom('log_entries').select(['recipient', 'status', 'error']).where('message_id', '=', id).orderBy('recipient').execute()).map((e) => ({ ...e }));

  it('takes AUTH LOGIN as well as PLAIN, and a sending_access key', async () => {
    const sending = (await t.call('POST', '/v1/api-keys', { body: { name: 'smtp', permission: 'sending_access' } })).json().data.key as string;
    const smtpSends = async () => valueOf(parseMetrics(await t.services.metrics!.registry.metrics()), 'mailroom_sends_total', { way: 'smtp', status: 'sent' });
    const before = await smtpSends();
    const info = await submit(port, sending, mail(), { auth: { user: 'mailroom', pass: sending, method: 'LOGIN' } });
    const id = queuedId(info.response);
    assert.deepEqual(await entriesOf(id), [{ recipient: 'ann@example.com', status: 'sent', error: null }]);
    // Counted as a send that came in by SMTP (GET /metrics).
    assert.equal(await smtpSends(), before + 1);
  });

  it('reads a large message on only once the memory the HTTP send routes share has room for it', async () => {
    const key = (await t.call('POST', '/v1/api-keys', { body: { name: 'memory' } })).json().data.key as string;
    const memory = t.services.sendMemory;
    // Held as two large HTTP sends in flight would hold it.
    const giveBack = await memory.acquire(SEND_MEMORY_BUDGET);
    let settled = false;
    const sending = submit(port, key, mail({ subject: 'Large', attachments: [{ filename: 'big.bin', content: randomBytes(3 * 1024 * 1024) }] })).finally(() => {
      settled = true;
    });
    await waitFor(async () => memory.state().waiting === 1, 'the large message to wait for its share');
    assert.equal(settled, false);
    assert.equal((await t.db.selectFrom('messages').select('id').where('subject', '=', 'Large').execute()).length, 0);
    giveBack();
    const id = queuedId((await sending).response);
    assert.deepEqual(await entriesOf(id), [{ recipient: 'ann@example.com', status: 'sent', error: null }]);
    await waitFor(async () => memory.state().holders === 0, 'its share to be given back');
    assert.deepEqual(memory.state(), { held: 0, holders: 0, waiting: 0 });
  });

  it('answers 535 5.7.8 to a wrong key or another user name', async () => {
    assert.match(await refusal(submit(port, 'mr_wrong', mail())), /^535 5\.7\.8 Authentication credentials invalid/);
    assert.match(await refusal(submit(port, t.apiKey, mail(), { auth: { user: 'admin', pass: t.apiKey } })), /^535 5\.7\.8 /);
    // A key's length and prefix with a NUL inside: looked up on PostgreSQL it was a 454 "temporary" failure.
    const nul = `${t.apiKey.slice(0, 10)}\u0000${t.apiKey.slice(11)}`;
    // AUTH LOGIN: the password alone is base64, a NUL in it survives (PLAIN would cut the password there).
    assert.match(await refusal(submit(port, nul, mail(), { auth: { user: 'mailroom', pass: nul, method: 'LOGIN' } })), /^535 5\.7\.8 Authentication credentials invalid/);
  });

  it('refuses AUTH before STARTTLS (538) and MAIL before AUTH (530 5.7.0)', async () => {
    const [, ehlo, auth] = await converse(port, ['EHLO client.example', `AUTH PLAIN ${plain('mailroom', t.apiKey)}`]);
    assert.match(ehlo!, /STARTTLS/);
    assert.match(auth!, /^538 .*STARTTLS/);
    const [, , mailFrom] = await converse(port, ['EHLO client.example', 'MAIL FROM:<hello@sandbox.mailroom.test>']);
    assert.equal(mailFrom, '530 5.7.0 Authentication required');
  });

  it('records a send from an unverified domain as failed, as the HTTP API does, and answers 550 5.7.1 with its message id', async () => {
    const response = await refusal(submit(port, t.apiKey, mail({ from: 'Acme <news@unverified.example>' })));
    const match = /^550 5\.7\.1 Not sent: Sender domain unverified\.example is not a domain of this workspace; add and verify it first \(recorded as (msg_\S+)\)$/.exec(response);
    assert.ok(match, response);
    assert.deepEqual(await entriesOf(match[1]!), [{ recipient: 'ann@example.com', status: 'failed', error: 'Sender domain unverified.example is not a domain of this workspace; add and verify it first' }]);
  });

  it("answers 550 5.7.1 to a key restricted to another domain, recording nothing", async () => {
    const domain = (await t.call('POST', '/v1/domains', { body: { domain: 'own.example' } })).json().data;
    const key = (await t.call('POST', '/v1/api-keys', { body: { name: 'own', permission: 'sending_access', domain_id: domain.id } })).json().data.key as string;
    const before = await t.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(await refusal(submit(port, key, mail())), '550 5.7.1 This API key can only send from own.example');
    const after = await t.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
  });

  it('answers 550 5.7.1 when every recipient is suppressed, and 250 when only some are', async () => {
    await t.call('POST', '/v1/suppressions', { body: { email: 'gone@example.com' } });
    const response = await refusal(submit(port, t.apiKey, mail({ to: 'gone@example.com' })));
    const match = /^550 5\.7\.1 Not sent: every recipient is on the suppression list \(recorded as (msg_\S+)\)$/.exec(response);
    assert.ok(match, response);
    assert.deepEqual(await entriesOf(match[1]!), [{ recipient: 'gone@example.com', status: 'suppressed', error: 'Recipient is on the suppression list (manual)' }]);
    const id = queuedId((await submit(port, t.apiKey, mail({ to: 'gone@example.com, ann@example.com' }))).response);
    assert.deepEqual((await entriesOf(id)).map((e) => [e.recipient, e.status]), [['ann@example.com', 'sent'], ['gone@example.com', 'suppressed']]);
  });

  it('delivers to the envelope only: a To address outside it gets no entry, and To must name one of it', async () => {
    const id = queuedId((await submit(port, t.apiKey, mail({ to: 'ann@example.com, bob@example.com', envelope: { from: 'app@example.com', to: ['ann@example.com'] } }))).response);
    assert.deepEqual((await entriesOf(id)).map((e) => e.recipient), ['ann@example.com']);
    assert.match(
      await refusal(submit(port, t.apiKey, mail({ to: 'bob@example.com', envelope: { from: 'app@example.com', to: ['ann@example.com'] } }))),
      /^550 5\.6\.0 To must name at least one of the envelope recipients/,
    );
  });

  it("answers the send rules' sentence with 550 5.6.0, and 452 4.5.3 past 50 recipients", async () => {
    assert.equal(await refusal(submit(port, t.apiKey, mail({ subject: '' }))), '550 5.6.0 Subject must not be empty');
    const many = Array.from({ length: 51 }, (_, i) => `r${i}@example.com`);
    const info = await submit(port, t.apiKey, mail({ to: many }));
    assert.equal(info.accepted.length, 50);
    assert.deepEqual(info.rejected, ['r50@example.com']);
    assert.match((info.rejectedErrors?.[0] as { response?: string } | undefined)?.response ?? '', /^452 4\.5\.3 Too many recipients/);
    assert.equal((await entriesOf(queuedId(info.response))).length, 50);
  });

  it('stops a start whose SUBMISSION_PORT is taken, naming the variable', async () => {
    const config = loadConfig({ ...t.storeEnv, LOG_LEVEL: 'silent', SUBMISSION_PORT: String(port) });
    await assert.rejects(openRuntime(config, { submission: true }), (error: unknown) =>
      error instanceof ConfigError && error.message === `Cannot listen on SUBMISSION_PORT ${port} at 127.0.0.1 (EADDRINUSE): another process is listening there; stop it, or set SUBMISSION_PORT to a free port, or 0 for none`,
    );
  });

  it('answers 552 5.3.4 to attachments over 40 MB', async () => {
    const big = Buffer.alloc(40 * 1024 * 1024 + 1, 7);
    assert.equal(
      await refusal(submit(port, t.apiKey, mail({ attachments: [{ filename: 'big.bin', content: big }] }))),
      '552 5.3.4 Message too big: attachments must be at most 40 MB together (got 40.0 MB)',
    );
  });
});

describe('SMTP submission with SUBMISSION_ALLOW_INSECURE_AUTH and small budgets', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp({ SUBMISSION_ALLOW_INSECURE_AUTH: 'true', RATE_LIMIT_SEND_PER_MIN: '2', RATE_LIMIT_OTHER_PER_MIN: '2' }, { submission: true });
    port = t.submission!.port;
  });
  after(() => t.close());

  it("counts each MAIL against the key's send budget: past it, 451 4.7.1", async () => {
    const replies = await converse(port, [
      'EHLO client.example', `AUTH PLAIN ${plain('mailroom', t.apiKey)}`,
      'MAIL FROM:<a@sandbox.mailroom.test>', 'RSET', 'MAIL FROM:<a@sandbox.mailroom.test>', 'RSET', 'MAIL FROM:<a@sandbox.mailroom.test>',
    ]);
    assert.match(replies[2]!, /^235 /);
    assert.match(replies[3]!, /^250 /);
    assert.match(replies[5]!, /^250 /);
    assert.match(replies[7]!, /^451 4\.7\.1 Rate limit exceeded; try again in \d+ s$/);
  });

  it('counts failed authentications per client address: past the budget, 454 4.7.0', async () => {
    const wrong = `AUTH PLAIN ${plain('mailroom', 'mr_guess')}`;
    const replies = await converse(port, ['EHLO client.example', wrong, wrong, wrong]);
    assert.match(replies[2]!, /^535 5\.7\.8 /);
    assert.match(replies[3]!, /^535 5\.7\.8 /);
    assert.match(replies[4]!, /^454 4\.7\.0 Too many failed authentications/);
  });

  it('announces SIZE and answers 552 to a larger MAIL SIZE= or DATA', async () => {
    // A key of its own: the budget test above spent the first key's.
    const key = (await t.call('POST', '/v1/api-keys', { body: { name: 'size' } })).json().data.key as string;
    const body = Buffer.concat([Buffer.from('Subject: big\r\n\r\n'), Buffer.alloc(SUBMISSION_MAX_MESSAGE_BYTES, 'a'), Buffer.from('\r\n.\r\n')]);
    const [, ehlo, auth, declared, mailFrom, rcpt, data, sent] = await converse(port, [
      'EHLO client.example', `AUTH PLAIN ${plain('mailroom', key)}`, `MAIL FROM:<a@sandbox.mailroom.test> SIZE=${SUBMISSION_MAX_MESSAGE_BYTES + 1}`,
      'MAIL FROM:<a@sandbox.mailroom.test>', 'RCPT TO:<ann@example.com>', 'DATA', body,
    ]);
    assert.match(ehlo!, new RegExp(`^250[ -]SIZE ${SUBMISSION_MAX_MESSAGE_BYTES}\r?$`, 'm'));
    assert.match(auth!, /^235 /);
    assert.match(declared!, /^552 /);
    assert.match(mailFrom!, /^250 /);
    assert.match(rcpt!, /^250 /);
    assert.match(data!, /^354 /);
    assert.equal(sent, `552 5.3.4 Message too big: at most ${SUBMISSION_MAX_MESSAGE_BYTES} bytes`);
  });
});

describe('SMTP submission when its self-signed certificate cannot be made', () => {
  let t: TestApp;
  let server: SubmissionServer;
  let made = 0;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000' });
    const { services } = t;
    server = await startSubmissionServer(
      { ...t.config.submission, port: 0 },
      {
        authenticate: services.apiKeys.authenticate, rateLimiter: services.rateLimiter, limits: t.config.rateLimits, memory: services.sendMemory,
        accept: (workspaceId, input, key) => services.send.accept(workspaceId, input, key, 'smtp'),
        // The first attempt fails (as a broken entropy source or a hostname the library refuses would); the next makes one.
        makeCertificate: async (settings, logger) => {
          made += 1;
          if (made === 1) throw new Error('no key could be made');
          return selfSignedCertificate(settings, logger);
        },
      },
      pino({ level: 'silent' }),
    );
  });
  after(async () => {
    await server?.close();
    await t?.close();
  });

  it('answers 421 to the client it failed for, and the next client gets the certificate and a greeting', async () => {
    const socket = connect(server.port, '127.0.0.1');
    const [greeting] = (await once(socket, 'data')) as [Buffer];
    socket.destroy();
    assert.equal(greeting.toString().trim(), '421 4.3.0 Service not available, please try again later');

    const info = await submit(server.port, t.apiKey, { from: 'billing@sandbox.mailroom.test', to: 'ann@example.com', subject: 'After a failed start', text: 'Hello' });
    queuedId(info.response);
    assert.equal(made, 2);
  });
});
