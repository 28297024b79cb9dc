import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSmtpProvider } from '../src/delivery/smtp-provider.js';
import type { BuiltMessage } from '../src/delivery/message-builder.js';
import type { Provider } from '../src/delivery/provider.js';
import { newId } from '../src/lib/ids.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { waitFor } from './helpers/wait-for.js';

const RAW = Buffer.from('From: hello@acme.example\r\nTo: undisclosed-recipients:;\r\nSubject: Hello\r\n\r\nHello there\r\n');

/** A built message to these recipients, each with a return path that names its message and place, so its MAIL FROM can be found. */
function message(to: string[]): BuiltMessage {
  const id = newId('msg');
  const envelopes = to.map((address, index) => ({ from: `bounce+${id}.${index}@mr-bounces.acme.example`, to: address }));
  return { messageId: id, workspaceId: 'ws_test', envelopes, messageIdHeader: `<${id}@acme.example>`, fromAddress: 'hello@acme.example', raw: RAW };
}

/** The command lines of the session that sent this MAIL FROM (the return path of `message`'s recipient at `index`). */
function sessionOf(sink: SmtpSink, built: BuiltMessage, index: number): string[] {
  const from = `MAIL FROM:<${built.envelopes[index]!.from}>`;
  const session = sink.commands.find((c) => c.line.startsWith(from))?.session;
  assert.ok(session, `the relay saw ${from}`);
  // A pooled session carries other messages too: from this MAIL FROM up to the next one.
  const lines = sink.commands.filter((c) => c.session === session).map((c) => c.line);
  const start = lines.findIndex((l) => l.startsWith(from));
  const next = lines.findIndex((l, i) => i > start && l.startsWith('MAIL FROM:'));
  return lines.slice(start, next === -1 ? undefined : next);
}

const ascii = (line: string) => /^[\x20-\x7e]*$/.test(line);

describe('SMTP envelopes as the relay receives them: A-label domains, SMTPUTF8 only where announced', () => {
  let withUtf8: SmtpSink;
  let withoutUtf8: SmtpSink;
  let toUtf8: Provider;
  let toPlain: Provider;

  before(async () => {
    withUtf8 = await startSmtpSink();
    withoutUtf8 = await startSmtpSink({ smtputf8: false });
    toUtf8 = createSmtpProvider(`smtp://127.0.0.1:${withUtf8.port}`);
    toPlain = createSmtpProvider(`smtp://127.0.0.1:${withoutUtf8.port}`);
  });
  after(async () => {
    await Promise.all([toUtf8.close(), toPlain.close()]);
    await Promise.all([withUtf8.close(), withoutUtf8.close()]);
  });

  it('sends an internationalised domain as its A-label in RCPT TO, in 7-bit, without SMTPUTF8, whichever form it is handed in', async () => {
    // To a relay that announces SMTPUTF8 as well: the domain is not sent in UTF-8 because it may be.
    for (const [provider, sink] of [[toPlain, withoutUtf8], [toUtf8, withUtf8]] as const) {
      const built = message(['leser@xn--bcher-kva.example', 'leser@bücher.example']);
      const outcomes = await provider.send(built);
      assert.deepEqual(outcomes.map((o) => [o.recipient, o.kind]), [['leser@xn--bcher-kva.example', 'accepted'], ['leser@bücher.example', 'accepted']]);
      for (const index of [0, 1]) {
        const [mailFrom, rcptTo] = sessionOf(sink, built, index);
        assert.ok(mailFrom!.startsWith(`MAIL FROM:<${built.envelopes[index]!.from}> `));
        assert.doesNotMatch(mailFrom!, /SMTPUTF8/);
        assert.equal(rcptTo, 'RCPT TO:<leser@xn--bcher-kva.example> NOTIFY=SUCCESS,FAILURE,DELAY');
        assert.ok(ascii(mailFrom!) && ascii(rcptTo!), 'not a byte above 0x7f');
      }
    }
  });

  it('sends a non-ASCII local part as it is, with SMTPUTF8 on MAIL FROM, to a relay that announces it; DSN and SIZE kept', async () => {
    const built = message(['jörg@bücher.example']);
    const [outcome] = await toUtf8.send(built);
    assert.deepEqual([outcome?.recipient, outcome?.kind], ['jörg@bücher.example', 'accepted']);
    assert.match(outcome!.detail, /^250 /);
    const [mailFrom, rcptTo, data] = sessionOf(withUtf8, built, 0);
    assert.match(mailFrom!, / SMTPUTF8( |$)/);
    assert.match(mailFrom!, new RegExp(` SIZE=${RAW.length}( |$)`));
    assert.match(mailFrom!, new RegExp(` ENVID=${built.messageId}( |$)`));
    assert.equal(rcptTo, 'RCPT TO:<jörg@xn--bcher-kva.example> NOTIFY=SUCCESS,FAILURE,DELAY', 'the local part in UTF-8, the domain still an A-label');
    assert.equal(data, 'DATA');
    const copy = withUtf8.received.find((m) => m.envelope.mailFrom && m.envelope.mailFrom.address === built.envelopes[0]!.from);
    assert.equal(copy?.raw, RAW.toString('utf8'), 'the message, as built');
    assert.equal(copy?.envelope.smtpUtf8, true);
  });

  it('fails such a recipient with the reason, and sends it no MAIL FROM, when the relay does not announce SMTPUTF8; the others go', async () => {
    const built = message(['ada@example.com', 'jörg@example.com']);
    const outcomes = await toPlain.send(built);
    assert.deepEqual(outcomes.map((o) => [o.recipient, o.kind]), [['ada@example.com', 'accepted'], ['jörg@example.com', 'failed']]);
    const refused = outcomes[1]!;
    assert.equal(
      refused.detail,
      `Not sent: the SMTP relay 127.0.0.1:${withoutUtf8.port} does not announce SMTPUTF8 (RFC 6531), which an address with a non-ASCII local part needs (check the relay's settings and SMTP_SMTPUTF8)`,
    );
    assert.equal(refused.bounceSubtype, undefined, 'no bounce: nothing is suppressed');
    assert.deepEqual([refused.problem?.kind, refused.problem?.host], ['smtputf8', `127.0.0.1:${withoutUtf8.port}`]);
    assert.match(refused.problem!.reply, /PIPELINING/, "the relay's EHLO reply, for the operator");

    // Its session: EHLO, then QUIT, and nothing between.
    const quitOnly = await waitFor(() => {
      const sessions = new Map<string, string[]>();
      for (const c of withoutUtf8.commands) sessions.set(c.session, [...(sessions.get(c.session) ?? []), c.line]);
      return [...sessions.values()].find((lines) => lines.length === 2 && lines[0]!.startsWith('EHLO ') && lines[1] === 'QUIT');
    }, 'a session of EHLO and QUIT alone');
    assert.equal(quitOnly.length, 2);
    assert.ok(!withoutUtf8.commands.some((c) => c.line.includes(built.envelopes[1]!.from)), 'no MAIL FROM for it');
    assert.ok(!withoutUtf8.rcptSeen.includes('jörg@example.com') && !withoutUtf8.commands.some((c) => c.line.includes('jörg')), 'no RCPT TO for it');
    assert.equal(sessionOf(withoutUtf8, built, 0)[1], 'RCPT TO:<ada@example.com> NOTIFY=SUCCESS,FAILURE,DELAY');
  });

  it('logs in on the connection of its own when the relay asks for AUTH', async () => {
    const guarded = await startSmtpSink({ auth: { user: 'mailroom', pass: 'relay-secret' } });
    const provider = createSmtpProvider(`smtp://mailroom:relay-secret@127.0.0.1:${guarded.port}`);
    try {
      const built = message(['jörg@example.com']);
      const [outcome] = await provider.send(built);
      assert.equal(outcome?.kind, 'accepted', outcome?.detail);
      assert.deepEqual(guarded.authenticated, ['mailroom']);
      assert.match(sessionOf(guarded, built, 0)[0]!, / SMTPUTF8( |$)/);
    } finally {
      await provider.close();
      await guarded.close();
    }
  });

  it('reports a relay that cannot be reached as temporary, for the worker to retry', async () => {
    const closed = await startSmtpSink();
    const port = closed.port;
    await closed.close();
    const provider = createSmtpProvider(`smtp://127.0.0.1:${port}`);
    try {
      const [outcome] = await provider.send(message(['jörg@example.com']));
      assert.equal(outcome?.kind, 'temporary', outcome?.detail);
      assert.equal(outcome?.problem?.kind, 'connection');
    } finally {
      await provider.close();
    }
  });
});
