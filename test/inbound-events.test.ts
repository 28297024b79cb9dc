import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createInboundReportService } from '../src/inbound/inbound-report-service.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'inbound');

/** A fixture report, rewritten to be about a message this test sent (its id in the VERP address, ENVID and Message-ID). */
function reportAbout(fixture: string, fixtureId: string, messageId: string, recipients: Record<string, string> = {}): Buffer {
  let text = readFileSync(join(FIXTURES, fixture), 'utf8').replaceAll(fixtureId, messageId);
  for (const [from, to] of Object.entries(recipients)) text = text.replaceAll(from, to);
  return Buffer.from(text);
}

describe('inbound reports move statuses, keep the suppression list and emit events', () => {
  let t: TestApp;
  let inbound: ReturnType<typeof createInboundReportService>;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000' });
    inbound = createInboundReportService(t.store, t.returnPaths);
  });
  after(() => t.close());

  const send = async (to: string[]) => (await t.call('POST', '/v1/send', { body: sendBody({ to }) })).json().data.message_id as string;
  const stats = async () => (await t.call('GET', '/v1/send/stats')).json().data;
  /** The signed return path of the message's recipient at `index`, as the worker sends from it. */
  const returnPath = (id: string, index = 0, now?: number) => t.returnPaths.sign(id, index, 'mr-bounces.sandbox.mailroom.test', now);

  it('records a hard bounce: the send entry bounced with the diagnostic, a bounce entry, the address suppressed, one event; the same report again changes nothing', async () => {
    const id = await send(['grace@example.net', 'ada@example.com']);
    const before = await stats();
    const raw = reportAbout('postfix-bounce-verp.eml', 'msg_01abc', id);

    const verdict = await inbound.record(raw, [returnPath(id)]);
    assert.deepEqual([verdict.outcome, verdict.messageId, verdict.results.map((r) => [r.recipient, r.kind, r.effect])], ['recorded', id, [['grace@example.net', 'hard_bounce', 'move']]]);
    const entry = await t.store.logs.findSendEntry(id, 'grace@example.net');
    assert.equal(entry?.status, 'bounced');
    assert.equal(entry?.error, '550 5.1.1 <grace@example.net>: Recipient address rejected: User unknown in virtual mailbox table');
    assert.equal((await t.store.logs.findSendEntry(id, 'ada@example.com'))?.status, 'sent', 'the other recipient is untouched');
    const bounces = (await t.call('GET', '/v1/send/logs?type=bounce')).json().data.filter((e: { message_id: string }) => e.message_id === id);
    assert.deepEqual(bounces.map((e: { status: string; to: string; error: string }) => [e.status, e.to, e.error]), [['bounced', 'grace@example.net', entry!.error]]);
    assert.equal((await t.store.suppressions.findSuppressed(t.workspaceId, ['grace@example.net'])).get('grace@example.net'), 'hard_bounce');
    const events = await t.store.messageEvents.listForMessage(id);
    assert.equal(events.length, 1);
    const payload = JSON.parse(events[0]!.payload);
    assert.deepEqual([payload.event, payload.to, payload.bounce_type, payload.bounce_subtype, payload.diagnostic_code], ['bounced', 'grace@example.net', 'Permanent', 'NoEmail', entry!.error]);
    const afterFirst = await stats();
    assert.equal(afterFirst.bounced, before.bounced + 1);

    const again = await inbound.record(raw, [returnPath(id)]);
    assert.equal(again.outcome, 'duplicate');
    assert.deepEqual(await stats(), afterFirst, 'the same report twice changes nothing');
    assert.equal((await t.store.messageEvents.listForMessage(id)).length, 1);
    assert.equal((await t.call('POST', '/v1/send', { body: sendBody({ to: ['grace@example.net'] }) })).json().data.status, 'suppressed');
  });

  it('acts on no one for a report that came to no return path, whatever message it names', async () => {
    const id = await send(['lin@example.net']);
    // The returned headers name the message, but the report came to no return path that may speak for anyone.
    const raw = Buffer.from(reportAbout('postfix-bounce-verp.eml', 'msg_01abc', id, { 'grace@example.net': 'lin@example.net' }).toString('utf8').replace(/Original-Envelope-Id: .*\n/, ''));
    const verdict = await inbound.record(raw, ['postmaster@mr-bounces.sandbox.mailroom.test']);
    assert.equal(verdict.outcome, 'ignored');
    assert.match(verdict.reason!, /^the return path is not signed \(bounce\+msg_/, 'it quotes only the unsigned return path of its made-up original');
    assert.equal((await t.store.logs.findSendEntry(id, 'lin@example.net'))?.status, 'sent');
  });

  it('moves a recipient to delivered on a success notification', async () => {
    const id = await send(['ada@example.com']);
    const verdict = await inbound.record(reportAbout('postfix-relayed-success.eml', 'msg_01abc', id), [returnPath(id)]);
    assert.deepEqual(verdict.results.map((r) => [r.kind, r.effect]), [['delivered', 'move']]);
    assert.equal((await t.store.logs.findSendEntry(id, 'ada@example.com'))?.status, 'delivered');
    assert.deepEqual((await t.store.messageEvents.listForMessage(id)).map((e) => e.type), ['delivered']);
  });

  it('records a complaint once, as a complaint entry with its feedback type, and suppresses the address', async () => {
    const id = await send(['grace.hopper@yahoo.example']);
    const before = await stats();
    // Sent to the complaint address: the report's Original-Mail-From, the recipient's signed return path, says whom it is about.
    const raw = reportAbout('yahoo-arf-complaint.eml', 'msg_01def', id, { [`bounce+${id}@mr-bounces.acme.example`]: returnPath(id) });
    const verdict = await inbound.record(raw, ['fbl@acme.example']);
    assert.deepEqual([verdict.messageId, verdict.results.map((r) => [r.kind, r.effect])], [id, [['complaint', 'move']]]);
    assert.equal((await t.store.logs.findSendEntry(id, 'grace.hopper@yahoo.example', 'complaint'))?.status, 'complained');
    assert.equal((await t.store.logs.findSendEntry(id, 'grace.hopper@yahoo.example'))?.status, 'sent', 'the send entry keeps its status');
    const [event] = await t.store.messageEvents.listForMessage(id);
    assert.deepEqual([event?.type, JSON.parse(event!.payload).feedback_type], ['complained', 'abuse']);
    assert.equal((await t.store.suppressions.findSuppressed(t.workspaceId, ['grace.hopper@yahoo.example'])).get('grace.hopper@yahoo.example'), 'complaint');
    assert.equal((await stats()).complained, before.complained + 1);
    // The same complaint in another envelope (other bytes) is still one complaint.
    const resent = await inbound.record(Buffer.concat([raw, Buffer.from('\n')]), ['fbl@acme.example']);
    assert.deepEqual(resent.results.map((r) => r.effect), ['duplicate']);
    assert.equal((await stats()).complained, before.complained + 1);
  });

  it('records nothing against the recipient of a feedback report that is no complaint (auth-failure, not-spam), and says why', async () => {
    for (const type of ['auth-failure', 'not-spam']) {
      const id = await send([`${type}@yahoo.example`]);
      const before = await stats();
      const raw = Buffer.from(
        reportAbout('yahoo-arf-complaint.eml', 'msg_01def', id, { [`bounce+${id}@mr-bounces.acme.example`]: returnPath(id), 'grace.hopper@yahoo.example': `${type}@yahoo.example` })
          .toString('utf8')
          .replace(/Feedback-Type: abuse/i, `Feedback-Type: ${type}`),
      );
      const verdict = await inbound.record(raw, ['fbl@acme.example']);
      assert.deepEqual(verdict.results.map((r) => [r.kind, r.effect]), [['complaint', 'ignored']]);
      assert.match(verdict.results[0]!.reason!, new RegExp(`^a feedback report of type ${type} is no complaint`));
      assert.equal(await t.store.logs.findSendEntry(id, `${type}@yahoo.example`, 'complaint'), undefined);
      assert.equal((await t.store.suppressions.findSuppressed(t.workspaceId, [`${type}@yahoo.example`])).size, 0);
      assert.deepEqual(await t.store.messageEvents.listForMessage(id), []);
      assert.deepEqual(await stats(), before);
    }
  });

  it('bounces a recipient whose server refused the message for good (spam, 5.7.1) without suppressing the address', async () => {
    const id = await send(['mary@example.net']);
    const refused = Buffer.from(
      reportAbout('postfix-bounce-verp.eml', 'msg_01abc', id, { 'grace@example.net': 'mary@example.net' })
        .toString('utf8')
        .replace(/said: 550 5\.1\.1[\s\S]*?\(in reply/, 'said: 554 5.7.1 <mary@example.net>: Message rejected as spam by content filter (in reply')
        .replace(/Status: 5\.1\.1/, 'Status: 5.7.1')
        .replace(/Diagnostic-Code: smtp; 550 5\.1\.1[\s\S]*?mailbox table/, 'Diagnostic-Code: smtp; 554 5.7.1 <mary@example.net>: Message rejected as spam by content filter'),
    );
    const verdict = await inbound.record(refused, [returnPath(id)]);
    assert.deepEqual(verdict.results.map((r) => [r.kind, r.effect]), [['soft_bounce', 'move']]);
    const entry = await t.store.logs.findSendEntry(id, 'mary@example.net');
    assert.deepEqual([entry?.status, entry?.error], ['bounced', '554 5.7.1 <mary@example.net>: Message rejected as spam by content filter']);
    const [event] = await t.store.messageEvents.listForMessage(id);
    assert.deepEqual([event?.type, JSON.parse(event!.payload).bounce_subtype], ['bounced', 'ContentRejected']);
    assert.equal((await t.store.logs.findSendEntry(id, 'mary@example.net', 'bounce'))?.status, 'bounced', 'a bounce entry records it');
    assert.equal((await t.store.suppressions.findSuppressed(t.workspaceId, ['mary@example.net'])).size, 0, 'the address is not suppressed');
  });

  it('keeps a soft bounce as attempt history without moving the status, and ignores an auto-reply', async () => {
    const id = await send(['joan@example.net']);
    // The Postfix bounce turned into a mailbox-full one: a temporary status and its diagnostic.
    const soft = Buffer.from(
      reportAbout('postfix-bounce-verp.eml', 'msg_01abc', id, { 'grace@example.net': 'joan@example.net', 'Status: 5.1.1': 'Status: 4.2.2' })
        .toString('utf8')
        .replace(/said: 550 5\.1\.1[\s\S]*?\(in reply/, 'said: 452 4.2.2 <joan@example.net>: Mailbox full, over quota (in reply')
        .replace(/Diagnostic-Code: smtp; 550 5\.1\.1[\s\S]*?mailbox table/, 'Diagnostic-Code: smtp; 452 4.2.2 <joan@example.net>: Mailbox full, over quota'),
    );
    const verdict = await inbound.record(soft, [returnPath(id)]);
    assert.deepEqual(verdict.results.map((r) => [r.kind, r.effect]), [['soft_bounce', 'recorded']]);
    assert.equal((await t.store.logs.findSendEntry(id, 'joan@example.net'))?.status, 'sent');
    const [attempt] = await t.store.deliveryAttempts.listForMessage(id);
    assert.deepEqual([attempt?.provider, attempt?.outcome], ['inbound', 'temporary']);
    assert.match(attempt!.detail, /4\.2\.2/);
    assert.equal((await t.store.suppressions.findSuppressed(t.workspaceId, ['joan@example.net'])).size, 0, 'a soft bounce suppresses nothing');

    const other = await send(['someone@example.com']);
    const vacation = await inbound.record(reportAbout('vacation-autoreply.eml', 'msg_01ghi', other), [returnPath(other)]);
    assert.deepEqual(vacation.results.map((r) => [r.kind, r.effect]), [['autoreply', 'ignored']]);
    assert.deepEqual(await t.store.messageEvents.listForMessage(other), []);
  });

  it('refuses a report at an unsigned return path, a tampered tag, an expired one, and a message here that does not exist', async () => {
    const id = await send(['hedy@example.net']);
    const raw = reportAbout('postfix-bounce-verp.eml', 'msg_01abc', id, { 'grace@example.net': 'hedy@example.net' });
    const signed = returnPath(id);
    const tampered = signed.replace(/\.([a-z2-7])([a-z2-7]{15})@/, (_, first: string, rest: string) => `.${first === 'a' ? 'b' : 'a'}${rest}@`);
    const expired = returnPath(id, 0, Date.now() - 31 * 86_400_000);
    const cases: [string, RegExp][] = [
      [`bounce+${id}@mr-bounces.sandbox.mailroom.test`, /^the return path is not signed/],
      [tampered, /^the return path's tag does not match/],
      [expired, /^the return path expired \(signed 31 days ago; valid for 30\)/],
      [returnPath(id, 7), /^its return path names no recipient of a message here/],
    ];
    for (const [address, reason] of cases) {
      // Other bytes each time, so no case is taken for a repeat of another.
      const verdict = await inbound.record(Buffer.concat([raw, Buffer.from(`\n${address}\n`)]), [address]);
      assert.equal(verdict.outcome, 'ignored', address);
      assert.match(verdict.reason!, reason);
    }
    assert.equal((await t.store.logs.findSendEntry(id, 'hedy@example.net'))?.status, 'sent');
    assert.equal((await t.store.suppressions.findSuppressed(t.workspaceId, ['hedy@example.net'])).size, 0);
    // A return path signed for another message and recipient passes its own check, but names another message: nothing here.
    const unknown = await inbound.record(readFileSync(join(FIXTURES, 'postfix-bounce-verp.eml')), [t.returnPaths.sign('msg_01jzzzzzzzzzzzzzzzzzzzzzzz', 0, 'mr-bounces.acme.example')]);
    assert.equal(unknown.outcome, 'ignored');
  });

  describe('a recipient forging reports about another (Alice, Bob and Carol receive one message)', () => {
    let id: string;
    const [alice, bob, carol] = ['alice@example.net', 'bob@example.net', 'carol@example.net'];
    before(async () => {
      id = await send([alice, bob, carol]);
    });
    const untouched = async (who: string) => {
      assert.equal((await t.store.logs.findSendEntry(id, who))?.status, 'sent', `${who} stays sent`);
      assert.equal((await t.store.logs.findSendEntry(id, who, 'complaint')), undefined, `${who} has no complaint`);
      assert.equal((await t.store.suppressions.findSuppressed(t.workspaceId, [who])).size, 0, `${who} is not suppressed`);
      assert.ok(!(await t.store.messageEvents.listForMessage(id)).some((e) => e.recipient === who), `no event about ${who}`);
    };

    it("ignores a hand-made DSN naming Bob sent to Alice's return path", async () => {
      // Alice's copy carries her return path (Return-Path: ...): she writes a bounce for Bob and sends it there.
      const forged = reportAbout('postfix-bounce-verp.eml', 'msg_01abc', id, { 'grace@example.net': bob });
      const verdict = await inbound.record(forged, [returnPath(id, 0)]);
      assert.deepEqual([verdict.outcome, verdict.recipient], ['recorded', alice]);
      assert.deepEqual(verdict.results.map((r) => [r.recipient, r.kind, r.effect, r.reason]), [
        [bob, 'hard_bounce', 'ignored', `the report names ${bob}, but its return path speaks only for ${alice}`],
      ]);
      await untouched(bob);
      await untouched(alice);
      const kept = await t.db.selectFrom('inbound_reports').select('verdict').where('message_id', '=', id).execute();
      assert.ok(kept.some((r) => JSON.parse(r.verdict!).results[0].reason.includes('speaks only for')), 'the reason is kept with the report');
    });

    it("ignores a hand-made ARF complaint naming Bob, sent to Alice's return path or quoting it at the complaint address", async () => {
      const forged = reportAbout('yahoo-arf-complaint.eml', 'msg_01def', id, { 'grace.hopper@yahoo.example': bob, [`bounce+${id}@mr-bounces.acme.example`]: returnPath(id, 0) });
      const atReturnPath = await inbound.record(forged, [returnPath(id, 0)]);
      assert.deepEqual(atReturnPath.results.map((r) => [r.recipient, r.kind, r.effect]), [[bob, 'complaint', 'ignored']]);
      const atComplaints = await inbound.record(Buffer.concat([forged, Buffer.from('\n')]), ['fbl@acme.example']);
      assert.deepEqual([atComplaints.recipient, atComplaints.results.map((r) => [r.recipient, r.effect])], [alice, [[bob, 'ignored']]]);
      await untouched(bob);
      await untouched(alice);
    });

    it("still bounces Carol with the real DSN that came to Carol's return path", async () => {
      const real = reportAbout('postfix-bounce-verp.eml', 'msg_01abc', id, { 'grace@example.net': carol });
      const verdict = await inbound.record(real, [returnPath(id, 2)]);
      assert.deepEqual(verdict.results.map((r) => [r.recipient, r.effect]), [[carol, 'move']]);
      assert.equal((await t.store.logs.findSendEntry(id, carol))?.status, 'bounced');
      assert.equal((await t.store.suppressions.findSuppressed(t.workspaceId, [carol])).get(carol), 'hard_bounce');
      await untouched(bob);
    });
  });
});
