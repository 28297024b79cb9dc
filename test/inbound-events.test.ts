import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createInboundReportService } from '../src/services/inbound-report-service.js';
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
    inbound = createInboundReportService(t.store);
  });
  after(() => t.close());

  const send = async (to: string[]) => (await t.call('POST', '/v1/send', { body: sendBody({ to }) })).json().data.message_id as string;
  const stats = async () => (await t.call('GET', '/v1/send/stats')).json().data;
  const returnPath = (id: string) => `bounce+${id}@mr-bounces.sandbox.mailroom.test`;

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

  it('finds the message by the returned Message-ID when the report came to no return path', async () => {
    const id = await send(['lin@example.net']);
    // No VERP recipient, no envelope id: only the returned headers tie it to the message.
    const raw = Buffer.from(reportAbout('postfix-bounce-verp.eml', 'msg_01abc', id, { 'grace@example.net': 'lin@example.net' }).toString('utf8').replace(/Original-Envelope-Id: .*\n/, ''));
    const verdict = await inbound.record(raw, ['postmaster@mr-bounces.sandbox.mailroom.test']);
    assert.deepEqual([verdict.outcome, verdict.messageId], ['recorded', id]);
    assert.equal((await t.store.logs.findSendEntry(id, 'lin@example.net'))?.status, 'bounced');
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
    const raw = reportAbout('yahoo-arf-complaint.eml', 'msg_01def', id);
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

  it('says uncorrelated for a report about no message of this installation', async () => {
    const verdict = await inbound.record(readFileSync(join(FIXTURES, 'postfix-bounce-verp.eml')), ['bounce+msg_01abc@mr-bounces.acme.example']);
    assert.equal(verdict.outcome, 'uncorrelated');
  });
});
