import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { createTestApp, sendBody, writtenRows, type TestApp } from './helpers/test-app.js';
import { addVerifiedDomain, verifyDkim } from './helpers/verified-domain.js';
import { waitFor } from './helpers/wait-for.js';

const DOMAIN = 'mail.acme.example';
// The worker's default poll (1 s): the 5-second promise must hold as deployed, not with a test's fast poll.
const RELAY = { DELIVERY_RETRY_BASE_MS: '20', RATE_LIMIT_SEND_PER_MIN: '100000' };
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('scheduled sends: validation and cancel', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000' })));
  after(() => t.close());

  it('refuses a scheduled_at that is not a date-time with an offset, or more than 30 days ahead, and writes nothing', async () => {
    const before = await writtenRows(t.db);
    const cases: [unknown, string][] = [
      ['2026-11-25T10:00:00', 'scheduled_at must be an ISO 8601 date and time with an offset, such as 2026-11-25T10:00:00Z or 2026-11-25T11:00:00+01:00 (got "2026-11-25T10:00:00")'],
      ['in 1 min', 'scheduled_at must be an ISO 8601 date and time with an offset, such as 2026-11-25T10:00:00Z or 2026-11-25T11:00:00+01:00 (got "in 1 min")'],
      ['2027-02-30T10:00:00Z', 'scheduled_at must be an ISO 8601 date and time with an offset, such as 2026-11-25T10:00:00Z or 2026-11-25T11:00:00+01:00 (got "2027-02-30T10:00:00Z")'],
    ];
    for (const [scheduled_at, error] of cases) {
      const res = await t.call('POST', '/v1/send', { body: sendBody({ scheduled_at }) });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json(), { success: false, error });
    }
    const tooFar = new Date(Date.now() + 31 * 86_400_000);
    const far = await t.call('POST', '/v1/send', { body: sendBody({ scheduled_at: tooFar.toISOString() }) });
    assert.deepEqual(far.json(), { success: false, error: `scheduled_at must be at most 30 days ahead (got ${tooFar.toISOString()})` });
    const typed = await t.call('POST', '/v1/send', { body: sendBody({ scheduled_at: 1764064800 }) });
    assert.equal(typed.statusCode, 400);
    const batch = await t.call('POST', '/v1/send/batch', { body: [sendBody(), sendBody({ scheduled_at: 'tomorrow' })] });
    assert.equal(batch.json().error.startsWith('[1].scheduled_at must be an ISO 8601 date and time with an offset'), true, batch.body);
    assert.deepEqual(await writtenRows(t.db), before);
  });

  it('holds a send until its time: entries stay sent, the detail shows scheduled_at, the job is due then', async () => {
    const at = '2026-11-25T11:00:00+01:00';
    const ahead = new Date(Date.now() + 86_400_000);
    // An offset that is not UTC, 29 days and a bit ahead at most: the instant is stored in UTC.
    const local = `${ahead.toISOString().slice(0, 19)}+02:00`;
    const res = await t.call('POST', '/v1/send', { body: sendBody({ to: ['ada@example.com', 'bob@example.com'], scheduled_at: local }) });
    assert.equal(res.json().data.status, 'sent', res.body);
    const id = res.json().data.message_id as string;
    const utc = new Date(Date.parse(local)).toISOString();
    const detail = (await t.call('GET', `/v1/messages/${id}`)).json().data;
    assert.equal(detail.scheduled_at, utc);
    assert.deepEqual(detail.recipients.map((r: { status: string }) => r.status), ['sent', 'sent']);
    const job = await t.store.messages.findJobByMessage(id);
    assert.equal(job?.available_at, utc);
    const logs = (await t.call('GET', `/v1/send/logs?message_id=${id}`)).json().data;
    assert.deepEqual(logs.map((e: { status: string }) => e.status), ['sent', 'sent']);
    // A time already past goes at once, and is still recorded as asked.
    const past = await t.call('POST', '/v1/send', { body: sendBody({ scheduled_at: at }) });
    assert.equal(past.json().data.status, 'sent');
    assert.equal((await t.store.messages.findJobByMessage(past.json().data.message_id))?.available_at, '2026-11-25T10:00:00.000Z');
  });

  it('cancels before it is due: every recipient failed with "Canceled before sending", a failed event each, counted in the stats', async () => {
    const statsBefore = (await t.call('GET', '/v1/send/stats')).json().data;
    const res = await t.call('POST', '/v1/send', { body: sendBody({ to: ['ada@example.com'], cc: ['carol@example.com'], scheduled_at: inMs(3_600_000) }) });
    const id = res.json().data.message_id as string;
    const canceled = await t.call('POST', `/v1/messages/${id}/cancel`);
    assert.equal(canceled.statusCode, 200, canceled.body);
    const data = canceled.json().data;
    assert.equal(data.message_id, id);
    assert.equal(data.canceled_recipients, 2);
    assert.match(data.canceled_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const logs = (await t.call('GET', `/v1/send/logs?message_id=${id}`)).json().data;
    assert.deepEqual(logs.map((e: { status: string; error: string }) => [e.status, e.error]), [
      ['failed', 'Canceled before sending'],
      ['failed', 'Canceled before sending'],
    ]);
    const detail = (await t.call('GET', `/v1/messages/${id}`)).json().data;
    for (const recipient of detail.recipients) {
      assert.deepEqual(recipient.events.map((e: { type: string; detail: string }) => [e.type, e.detail]), [['failed', 'Canceled before sending']]);
      assert.deepEqual(recipient.attempts, []);
    }
    const job = await t.store.messages.findJobByMessage(id);
    assert.equal(job?.state, 'done');
    const statsAfter = (await t.call('GET', '/v1/send/stats')).json().data;
    assert.equal(statsAfter.failed - statsBefore.failed, 2);
    assert.equal(statsAfter.total_sent - statsBefore.total_sent, 2, 'a canceled send still counts as sent to the API');

    const again = await t.call('POST', `/v1/messages/${id}/cancel`);
    assert.equal(again.statusCode, 409);
    assert.deepEqual(again.json(), { success: false, error: 'This message was already canceled' });
  });

  it('answers 409 for a send that is due or was never scheduled, and 404 for an unknown one or another workspace', async () => {
    const due = (await t.call('POST', '/v1/send', { body: sendBody({ scheduled_at: inMs(-60_000) }) })).json().data.message_id;
    const dueRes = await t.call('POST', `/v1/messages/${due}/cancel`);
    assert.equal(dueRes.statusCode, 409);
    assert.deepEqual(dueRes.json(), { success: false, error: 'This message is already due and can no longer be canceled' });
    assert.equal((await t.store.logs.listSendEntries([due]))[0]?.status, 'sent', 'a refused cancel changes nothing');

    const now = (await t.call('POST', '/v1/send', { body: sendBody() })).json().data.message_id;
    const nowRes = await t.call('POST', `/v1/messages/${now}/cancel`);
    assert.equal(nowRes.statusCode, 409);
    assert.deepEqual(nowRes.json(), { success: false, error: 'Only a scheduled message can be canceled; this one was sent at once' });

    assert.deepEqual((await t.call('POST', '/v1/messages/msg_unknown/cancel')).json(), { success: false, error: 'Message not found' });
    const theirs = (await t.call('POST', '/v1/send', { body: sendBody({ scheduled_at: inMs(3_600_000) }) })).json().data.message_id;
    const other = await t.newWorkspace();
    const foreign = await t.call('POST', `/v1/messages/${theirs}/cancel`, { key: other.apiKey });
    assert.equal(foreign.statusCode, 404);
    assert.equal((await t.store.messages.findJobByMessage(theirs))?.state, 'pending');
  });
});

describe('scheduled sends through a real SMTP relay on loopback', () => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let owner: TestApp;
  let t: TestApp;
  const smtp = () => ({ MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${sink.port}`, DNS_SERVERS: dns.address, ...RELAY });

  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
    // The store's owner runs no worker: the app that delivers can be stopped and started again on its store.
    owner = await createTestApp(smtp());
    await addVerifiedDomain(owner, dns, DOMAIN);
    t = await createTestApp(smtp(), { worker: true, shareStoreWith: owner });
  });
  after(async () => {
    await t.close();
    await owner.close();
    await sink.close();
    await dns.close();
  });

  const copiesOf = (id: string) => sink.received.filter((m) => (m.envelope.mailFrom as { address: string }).address.includes(id));
  const send = async (app: TestApp, scheduledAt: string, to = 'ada@example.com') => {
    const body = sendBody({ from_email: `Acme <hello@${DOMAIN}>`, to: [to], scheduled_at: scheduledAt });
    // The domain is the owner's workspace's: every app on the store sends for it with the owner's key.
    const res = await app.call('POST', '/v1/send', { body, key: owner.apiKey });
    assert.equal(res.json().data?.status, 'sent', res.body);
    return res.json().data.message_id as string;
  };

  it('hands a scheduled message over not before its time and within 5 seconds of it, signed as any other', async () => {
    const scheduledAt = inMs(2_500);
    const id = await send(t, scheduledAt);
    await waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', `${id} to be handed over`);
    const [attempt] = await t.store.deliveryAttempts.listForMessage(id);
    const handedAt = Date.parse(attempt!.created_at);
    assert.ok(handedAt >= Date.parse(scheduledAt), `handed over at ${attempt!.created_at}, before ${scheduledAt}`);
    assert.ok(handedAt - Date.parse(scheduledAt) < 5_000, `handed over at ${attempt!.created_at}, over 5 s after ${scheduledAt}`);
    const [copy] = copiesOf(id);
    assert.ok(copy, 'the relay received it');
    assert.equal((await verifyDkim(copy.raw, dns))[0]?.status.result, 'pass');
  });

  it('never delivers a canceled message; one scheduled later is delivered meanwhile', async () => {
    const canceled = await send(t, inMs(1_500), 'grace@example.com');
    const kept = await send(t, inMs(2_500), 'linus@example.com');
    assert.equal((await t.call('POST', `/v1/messages/${canceled}/cancel`, { key: owner.apiKey })).statusCode, 200);
    await waitFor(async () => (await t.store.messages.findJobByMessage(kept))?.state === 'done', `${kept} to be handed over`);
    // The worker has claimed past the canceled one's time: had it been claimable, it would have gone first.
    assert.deepEqual(copiesOf(canceled), []);
    assert.deepEqual(await t.store.deliveryAttempts.listForMessage(canceled), []);
    assert.equal((await t.store.logs.listSendEntries([canceled]))[0]?.status, 'failed');
  });

  it('survives a restart: accepted by one process, delivered at its time by the next', async () => {
    const scheduledAt = inMs(3_000);
    const id = await send(t, scheduledAt, 'restart@example.com');
    await t.close();
    t = await createTestApp(smtp(), { worker: true, shareStoreWith: owner });
    await waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', `${id} to be handed over after the restart`);
    const [attempt] = await t.store.deliveryAttempts.listForMessage(id);
    assert.ok(Date.parse(attempt!.created_at) >= Date.parse(scheduledAt));
    assert.ok(Date.parse(attempt!.created_at) - Date.parse(scheduledAt) < 5_000);
    assert.equal(copiesOf(id).length, 1);
  });
});
