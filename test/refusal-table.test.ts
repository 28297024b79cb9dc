/**
 * Every row of the refusal table (docs/delivery.md, src/delivery/refusal-table.ts)
 * against a real SMTP server answering that reply at that step: what the SMTP
 * provider makes of it, who is blamed, and what the operator hears.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildMessage, type BuiltMessage } from '../src/delivery/message-builder.js';
import type { RecipientOutcome } from '../src/delivery/provider.js';
import { createProviderTrouble } from '../src/delivery/provider-trouble.js';
import { REFUSAL_RULES } from '../src/delivery/refusal-table.js';
import { createSmtpProvider } from '../src/delivery/smtp-provider.js';
import { newId, nowIso } from '../src/lib/ids.js';
import { generateDkimKeyPair } from '../src/domains/dkim-keys.js';
import { freePort } from './helpers/free-port.js';
import { startRawRelay, startRefusingRelay, type Refusals } from './helpers/refusing-relay.js';

const keys = await generateDkimKeyPair();
const domain = { domain: 'acme.example', return_path_domain: 'mr-bounces.acme.example', dkim_selector: 'mrtest', dkim_private_key: keys.privateKeyPem };
const FAST = { connectionMs: 2_000, greetingMs: 500, socketMs: 2_000 };

async function message(to: string[]): Promise<BuiltMessage> {
  const id = newId('msg');
  return buildMessage(
    {
      id, workspace_id: 'ws_test', from_name: 'Acme', from_address: 'hello@acme.example', reply_to: null, subject: 'Hello', html: null, text: 'Hi',
      recipients: JSON.stringify(to.map((address) => ({ name: '', address }))), cc: null, bcc: null, headers: null, tags: null, scheduled_at: null, content_expired_at: null, template_id: null, template_version: null, track_opens: 0, track_clicks: 0, created_at: nowIso(),
    },
    domain,
    to.map((address, index) => ({ from: `bounce+${id}.${index}@mr-bounces.acme.example`, to: address })),
  );
}

/** Sends to `to` through a relay answering as `refusals` says; `auth` puts credentials in SMTP_URL. */
async function outcomesAt(refusals: Refusals, to = ['ada@example.com'], auth = false): Promise<RecipientOutcome[]> {
  const relay = await startRefusingRelay(refusals);
  const provider = createSmtpProvider(`smtp://${auth ? 'mailroom:secret@' : ''}127.0.0.1:${relay.port}`, { timeouts: FAST });
  try {
    return await provider.send(await message(to));
  } finally {
    await provider.close();
    await relay.close();
  }
}

const tested = new Set<string>();
/** The outcome, and which rule of the table decided it (read back from the detail and kind). */
function expectOutcome(outcome: RecipientOutcome, rule: string, expected: Partial<Omit<RecipientOutcome, 'detail'>> & { detail?: RegExp | string }) {
  tested.add(rule);
  const { detail, ...rest } = expected;
  for (const [key, value] of Object.entries(rest)) assert.deepEqual(outcome[key as keyof RecipientOutcome], value, `${rule}: ${key} of ${JSON.stringify(outcome)}`);
  if (detail instanceof RegExp) assert.match(outcome.detail, detail);
  else if (detail !== undefined) assert.equal(outcome.detail, detail);
}

describe('the refusal table, row by row, against a real SMTP server', () => {
  after(() => {
    // Every rule of the table has a row here.
    assert.deepEqual([...tested].sort(), [...REFUSAL_RULES.map((r) => r.rule), 'same-refusal-for-every-recipient'].sort());
  });

  it('no-reply: nothing listening is a temporary failure, and provider trouble (connection)', async () => {
    const provider = createSmtpProvider(`smtp://127.0.0.1:${await freePort()}`, { timeouts: FAST });
    try {
      const [outcome] = await provider.send(await message(['ada@example.com']));
      expectOutcome(outcome!, 'no-reply', { kind: 'temporary', detail: /ECONNREFUSED/ });
      assert.equal(outcome!.problem?.kind, 'connection');
    } finally {
      await provider.close();
    }
  });

  it('no-reply: a relay that never greets is a temporary failure, and provider trouble (timeout)', async () => {
    const silent = await startRawRelay(undefined);
    const provider = createSmtpProvider(`smtp://127.0.0.1:${silent.port}`, { timeouts: FAST });
    try {
      const [outcome] = await provider.send(await message(['ada@example.com']));
      expectOutcome(outcome!, 'no-reply', { kind: 'temporary', detail: /greeting|time/i });
      assert.equal(outcome!.problem?.kind, 'timeout');
      assert.equal(outcome!.problem?.host, `127.0.0.1:${silent.port}`);
    } finally {
      await provider.close();
      await silent.close();
    }
  });

  it('temporary-reply: a 4xx to RCPT (greylisting) is retried, and not the provider\'s trouble', async () => {
    const [outcome] = await outcomesAt({ rcptTo: { code: 451, text: '4.7.1 Greylisted, try again later' } });
    expectOutcome(outcome!, 'temporary-reply', { kind: 'temporary', detail: '451 4.7.1 Greylisted, try again later', problem: undefined });
  });

  it('temporary-reply: "454 4.7.1 Relay access denied" (a relay deferring) is retried, and is the provider\'s trouble', async () => {
    const [outcome] = await outcomesAt({ rcptTo: { code: 454, text: '4.7.1 <ada@example.com>: Relay access denied' } });
    expectOutcome(outcome!, 'temporary-reply', { kind: 'temporary' });
    assert.equal(outcome!.problem?.kind, 'relay-policy');
  });

  it('temporary-reply: a 4xx to MAIL FROM is retried, and is the provider\'s trouble', async () => {
    const [outcome] = await outcomesAt({ mailFrom: { code: 451, text: '4.3.0 Local error in processing' } });
    expectOutcome(outcome!, 'temporary-reply', { kind: 'temporary' });
    assert.equal(outcome!.problem?.kind, 'sender');
  });

  it('relay-session: a 554 greeting fails the recipient, naming the relay and quoting it', async () => {
    const [outcome] = await outcomesAt({ greeting: { code: 554, text: '5.7.1 No SMTP service for you' } });
    expectOutcome(outcome!, 'relay-session', { kind: 'failed', detail: /^The SMTP relay 127\.0\.0\.1:\d+ refused the session at CONN .*"554 5\.7\.1 No SMTP service for you"$/ });
    assert.equal(outcome!.problem?.kind, 'session');
  });

  it('relay-session: EHLO and HELO refused fail the recipient', async () => {
    const relay = await startRawRelay({ code: 550, text: '5.7.1 Your host is not welcome' });
    const provider = createSmtpProvider(`smtp://127.0.0.1:${relay.port}`, { timeouts: FAST });
    try {
      const [outcome] = await provider.send(await message(['ada@example.com']));
      expectOutcome(outcome!, 'relay-session', { kind: 'failed', detail: /refused the session at EHLO .*550 5\.7\.1 Your host is not welcome/ });
    } finally {
      await provider.close();
      await relay.close();
    }
  });

  it("relay-session: AUTH refused (535) fails the recipient: Mailroom's credentials", async () => {
    const [outcome] = await outcomesAt({ auth: { code: 535, text: '5.7.8 Authentication credentials invalid' } }, ['ada@example.com'], true);
    expectOutcome(outcome!, 'relay-session', { kind: 'failed', detail: /^The SMTP relay 127\.0\.0\.1:\d+ refused Mailroom's credentials \(check SMTP_URL\): "535 5\.7\.8 Authentication credentials invalid"$/ });
    assert.equal(outcome!.problem?.kind, 'auth');
    assert.ok(!outcome!.detail.includes('secret'), 'SMTP_URL\'s password is never shown');
  });

  it('relay-sender: any 5xx to MAIL FROM fails the recipient', async () => {
    const [outcome] = await outcomesAt({ mailFrom: { code: 553, text: '5.7.1 <bounce@mr-bounces.acme.example>: Sender address rejected: not owned by user' } });
    expectOutcome(outcome!, 'relay-sender', { kind: 'failed', detail: /refused the sender .*553 5\.7\.1/ });
    assert.equal(outcome!.problem?.kind, 'sender');
  });

  it('relay-policy: "Relay access denied" and "Authentication required" to RCPT fail the recipient, suppress nothing', async () => {
    const [relaying] = await outcomesAt({ rcptTo: { code: 554, text: '5.7.1 <ada@example.com>: Relay access denied' } });
    expectOutcome(relaying!, 'relay-policy', { kind: 'failed', bounceSubtype: undefined, detail: /refused to relay for Mailroom .*"554 5\.7\.1 <ada@example\.com>: Relay access denied"/ });
    assert.equal(relaying!.problem?.kind, 'relay-policy');
    const [auth] = await outcomesAt({ rcptTo: { code: 530, text: '5.7.0 Authentication required' } });
    expectOutcome(auth!, 'relay-policy', { kind: 'failed' });
  });

  it('recipient-address: 5.1.1 user unknown, 5.2.1 mailbox disabled and 5.1.10 null MX bounce, and the subtype suppresses', async () => {
    const outcomes = await outcomesAt(
      {
        rcptTo: (address) =>
          address.startsWith('gone')
            ? { code: 550, text: `5.1.1 <${address}>: Recipient address rejected: User unknown` }
            : address.startsWith('off')
              ? { code: 550, text: '5.2.1 The email account that you tried to reach is disabled' }
              : { code: 556, text: '5.1.10 Recipient address has null MX' },
      },
      ['gone@example.com', 'off@example.com', 'nomx@example.net'],
    );
    expectOutcome(outcomes[0]!, 'recipient-address', { kind: 'permanent', bounceSubtype: 'NoEmail', detail: /^550 5\.1\.1 <gone@example\.com>/ });
    expectOutcome(outcomes[1]!, 'recipient-address', { kind: 'permanent', bounceSubtype: 'General' });
    expectOutcome(outcomes[2]!, 'recipient-address', { kind: 'permanent', bounceSubtype: 'General' });
    assert.ok(outcomes.every((o) => o.problem === undefined), 'a bad address is not the provider\'s trouble');
  });

  it("relay-refused-recipient: 5.7.1 to RCPT from the relay fails the recipient, Postfix's \"Recipient address rejected: Access denied\" too", async () => {
    const [outcome] = await outcomesAt({ rcptTo: { code: 550, text: '5.7.1 Recipient not permitted from this sender' } });
    expectOutcome(outcome!, 'relay-refused-recipient', { kind: 'failed', detail: /refused to relay for Mailroom/ });
    const [postfix] = await outcomesAt({ rcptTo: { code: 554, text: '5.7.1 <ada@example.com>: Recipient address rejected: Access denied' } });
    expectOutcome(postfix!, 'relay-refused-recipient', { kind: 'failed' });
    // Exchange's directory says the same words with 5.4.1, and the mailbox does not exist.
    const [exchange] = await outcomesAt({ rcptTo: { code: 550, text: '5.4.1 Recipient address rejected: Access denied. AS(201806281)' } });
    expectOutcome(exchange!, 'recipient-address', { kind: 'permanent', bounceSubtype: 'NoEmail' });
  });

  it('message-refused: spam at DATA, too big, a full mailbox bounce with a subtype that does not suppress', async () => {
    const [spam] = await outcomesAt({ data: { code: 554, text: '5.7.1 Message rejected as spam by content filter' } });
    expectOutcome(spam!, 'message-refused', { kind: 'permanent', bounceSubtype: 'ContentRejected', detail: '554 5.7.1 Message rejected as spam by content filter' });
    const [big] = await outcomesAt({ data: { code: 552, text: '5.3.4 Message size exceeds fixed limit' } });
    expectOutcome(big!, 'message-refused', { kind: 'permanent', bounceSubtype: 'MessageTooLarge' });
    // Refused at MAIL FROM for the SIZE Mailroom announced: the message, not the sender.
    const [announced] = await outcomesAt({ mailFrom: { code: 552, text: '5.3.4 Message size exceeds fixed maximum message size' } });
    expectOutcome(announced!, 'message-refused', { kind: 'permanent', bounceSubtype: 'MessageTooLarge' });
    // Larger than the SIZE the relay announced: Nodemailer refuses to send it, as the relay would (552 5.3.4).
    const tiny = await startRefusingRelay({ size: 100 });
    const provider = createSmtpProvider(`smtp://127.0.0.1:${tiny.port}`, { timeouts: FAST });
    try {
      const [oversized] = await provider.send(await message(['ada@example.com']));
      expectOutcome(oversized!, 'message-refused', { kind: 'permanent', bounceSubtype: 'MessageTooLarge', detail: /^552 5\.3\.4 Message size larger than allowed 100/ });
    } finally {
      await provider.close();
      await tiny.close();
    }
    const [full] = await outcomesAt({ rcptTo: { code: 552, text: '5.2.2 Mailbox full' } });
    expectOutcome(full!, 'message-refused', { kind: 'permanent', bounceSubtype: 'MailboxFull' });
    // A bare 5.7.1 after DATA is a refusal of the message (policy), not of Mailroom: only at RCPT is it the relay's.
    const [policy] = await outcomesAt({ data: { code: 554, text: '5.7.1 Message rejected' } });
    expectOutcome(policy!, 'message-refused', { kind: 'permanent', bounceSubtype: 'ContentRejected', problem: undefined });
  });

  it('same-refusal-for-every-recipient: one non-mailbox 5xx for all of a message\'s recipients is the relay refusing Mailroom', async () => {
    const policy = (address: string) => ({ code: 550, text: `Rejected by policy for <${address}>` });
    const both = await outcomesAt({ rcptTo: policy }, ['ada@example.com', 'bob@example.org']);
    for (const outcome of both) expectOutcome(outcome, 'same-refusal-for-every-recipient', { kind: 'failed', detail: /refused to relay for Mailroom .*Rejected by policy/ });
    // The same reply to one recipient of one: a refusal of the message, not of Mailroom.
    const [alone] = await outcomesAt({ rcptTo: policy }, ['ada@example.com']);
    expectOutcome(alone!, 'message-refused', { kind: 'permanent', bounceSubtype: 'Undetermined' });
    // Two full mailboxes answering alike are still two full mailboxes.
    const full = await outcomesAt({ rcptTo: (a) => ({ code: 552, text: `5.2.2 <${a}>: Mailbox full` }) }, ['ada@example.com', 'bob@example.org']);
    assert.deepEqual(full.map((o) => [o.kind, o.bounceSubtype]), [['permanent', 'MailboxFull'], ['permanent', 'MailboxFull']]);
    // Different replies to two recipients: each judged alone.
    const mixed = await outcomesAt({ rcptTo: (a) => (a.startsWith('ada') ? policy(a) : undefined) }, ['ada@example.com', 'bob@example.org']);
    assert.deepEqual(mixed.map((o) => o.kind), ['permanent', 'accepted']);
  });
});

describe('the refusal table in docs/delivery.md', () => {
  it('has a row for each rule, in the order the code tries them, then the rule about the message as a whole', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'docs', 'delivery.md'), 'utf8');
    // The table alone: it ends at the first blank line (other tables further down have code-named rows too).
    const from = readme.slice(readme.indexOf('| rule | the relay answered'));
    const table = from.slice(0, from.indexOf('\n\n'));
    const rows = [...table.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]);
    assert.deepEqual(rows, [...REFUSAL_RULES.map((r) => r.rule), 'same-refusal-for-every-recipient']);
  });
});

describe('provider trouble reaches the operator once per problem per minute', () => {
  it('writes one line per distinct problem per minute, with how often it happened, and counts every one', () => {
    const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
    let clock = 0;
    const log = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, fields, message });
    const trouble = createProviderTrouble({ warn: log('warn'), error: log('error') } as never, () => clock);
    const refused = (to: string) => ({ kind: 'relay-policy' as const, host: 'relay.example:587', reply: `554 5.7.1 <${to}>: Relay access denied` });
    for (let i = 0; i < 50; i++) trouble.report('smtp', refused(`user${i}@example.com`), true);
    trouble.report('smtp', { kind: 'connection', host: 'relay.example:587', reply: 'connect ECONNREFUSED 10.0.0.1:587' }, false);
    assert.deepEqual(lines.map((l) => [l.level, l.fields.problem, l.fields.occurrences]), [['error', 'relay-policy', 1], ['warn', 'connection', 1]]);
    assert.deepEqual(lines[0]!.fields, { provider: 'smtp', host: 'relay.example:587', problem: 'relay-policy', reply: '554 5.7.1 <user0@example.com>: Relay access denied', occurrences: 1 });
    assert.match(lines[0]!.message, /refused to relay for Mailroom; recipients fail/);
    clock += 59_999;
    trouble.report('smtp', refused('late@example.com'), true);
    assert.equal(lines.length, 2, 'still within the minute');
    clock += 1;
    trouble.report('smtp', refused('later@example.com'), true);
    assert.deepEqual(lines.map((l) => l.fields.occurrences), [1, 1, 51], 'the next line says how many happened since the last');
    assert.deepEqual(trouble.counts(), [
      { provider: 'smtp', host: 'relay.example:587', problem: 'relay-policy', count: 52 },
      { provider: 'smtp', host: 'relay.example:587', problem: 'connection', count: 1 },
    ]);
  });
});
