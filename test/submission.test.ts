/**
 * SMTP submission (SUBMISSION_PORT): Nodemailer as the application's client,
 * over STARTTLS with the generated self-signed certificate, against the real
 * app with its delivery worker (sandbox provider). A message submitted by SMTP
 * must come out exactly like the same message sent to POST /v1/send, and every
 * refusal must answer its SMTP code.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { SUBMISSION_MAX_MESSAGE_BYTES } from '../src/submission/submission-server.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';
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
