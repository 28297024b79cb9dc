import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SIMULATOR_DOMAIN } from '../src/delivery/sandbox-provider.js';
import { createDeliveryWorker } from '../src/delivery/delivery-worker.js';
import { createProvider } from '../src/delivery/providers.js';
import { nowIso } from '../src/lib/ids.js';
import { headerOf } from './helpers/smtp-sink.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';

const sim = (local: string) => `${local}@${SIMULATOR_DOMAIN}`;
const silent = { info() {}, warn() {}, error() {} };

describe('delivery worker with the sandbox provider', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(
      { RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000', DELIVERY_RETRY_BASE_MS: '20', DELIVERY_MAX_ATTEMPTS: '3', WORKER_POLL_MS: '20' },
      { worker: true },
    );
  });
  after(() => t.close());

  const send = async (to: string[], overrides: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/v1/send', { body: sendBody({ to, ...overrides }) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data as { message_id: string; status: string; error?: string };
  };
  const jobDone = (messageId: string) =>
    waitFor(async () => (await t.store.messages.findJobByMessage(messageId))?.state === 'done', `the job of ${messageId} to finish`);
  const statusOf = async (messageId: string, recipient: string) => {
    const entry = await t.store.logs.findSendEntry(messageId, recipient);
    return [entry?.status, entry?.error];
  };
  const events = async (messageId: string) =>
    (await t.store.messageEvents.listForMessage(messageId)).map((e) => [e.type, e.recipient]).sort((a, b) => `${a}`.localeCompare(`${b}`));
  const logsTotal = async (query: string) => Number((await t.call('GET', `/v1/send/logs?${query}`)).headers['x-total-count']);

  it('delivers into the sandbox, and each simulator mailbox does what docs/delivery.md says', async () => {
    const before = (await t.call('GET', '/v1/send/stats')).json().data;
    const to = ['ada@example.com', sim('delivered'), sim('bounce'), sim('complaint')];
    const { message_id: id } = await send(to);
    await jobDone(id);

    assert.deepEqual(await statusOf(id, 'ada@example.com'), ['delivered', null]);
    assert.deepEqual(await statusOf(id, sim('delivered')), ['delivered', null]);
    const [bounced, detail] = await statusOf(id, sim('bounce'));
    assert.equal(bounced, 'bounced');
    assert.match(detail!, /^550 5\.1\.1 /);
    assert.deepEqual(await statusOf(id, sim('complaint')), ['delivered', null]);
    const complaints = (await t.call('GET', '/v1/send/logs?type=complaint')).json().data;
    assert.deepEqual(complaints.filter((c: { message_id: string }) => c.message_id === id).map((c: { status: string; to: string }) => [c.status, c.to]), [['complained', sim('complaint')]]);

    assert.deepEqual(await events(id), [
      ['bounced', sim('bounce')],
      ['complained', sim('complaint')],
      ['delivered', 'ada@example.com'],
      ['delivered', sim('complaint')],
      ['delivered', sim('delivered')],
    ]);
    const bounceEvent = (await t.store.messageEvents.listForMessage(id)).find((e) => e.type === 'bounced')!;
    const payload = JSON.parse(bounceEvent.payload);
    assert.deepEqual([payload.event, payload.message_id, payload.to, payload.bounce_type, payload.bounce_subtype], ['bounced', id, sim('bounce'), 'Permanent', 'NoEmail']);
    assert.match(payload.diagnostic_code, /^550 5\.1\.1 /);
    const complaint = JSON.parse((await t.store.messageEvents.listForMessage(id)).find((e) => e.type === 'complained')!.payload);
    assert.equal(complaint.feedback_type, 'abuse');
    // The hard bounce and the complaint put their addresses on the suppression list; the others stay off it.
    const listed = await t.store.suppressions.findSuppressed(t.workspaceId, to.map((a) => a.toLowerCase()));
    assert.deepEqual([...listed].sort(), [[sim('bounce'), 'hard_bounce'], [sim('complaint'), 'complaint']]);
    assert.equal((await t.call('POST', '/v1/send', { body: sendBody({ to: [sim('bounce')] }) })).json().data.status, 'suppressed');

    // Every recipient's attempt is on record, and the stats moved with the statuses.
    const attempts = await t.store.deliveryAttempts.listForMessage(id);
    assert.deepEqual(attempts.map((a) => [a.recipient, a.attempt, a.outcome, a.provider]).sort(), [
      ['ada@example.com', 1, 'delivered', 'sandbox'],
      [sim('bounce'), 1, 'permanent', 'sandbox'],
      [sim('complaint'), 1, 'delivered', 'sandbox'],
      [sim('delivered'), 1, 'delivered', 'sandbox'],
    ]);
    const stats = (await t.call('GET', '/v1/send/stats')).json().data;
    assert.equal(stats.delivered, before.delivered + 3);
    assert.equal(stats.bounced, before.bounced + 1);
    assert.equal(stats.complained, before.complained + 1);
    assert.equal(stats.delivered, await logsTotal('type=send&status=delivered'));

    // The sandbox kept the message as built: every recipient in To, signed, the envelope without the one not tried.
    const kept = await t.store.sandboxMessages.find(id);
    assert.ok(kept);
    assert.equal(headerOf(kept.raw, 'To'), to.join(', '));
    assert.match(headerOf(kept.raw, 'DKIM-Signature')!, /a=rsa-sha256; .*d=sandbox\.mailroom\.test/);
    // One envelope per recipient handed over, each from the return path signed for that recipient (its index among the four).
    const senders = JSON.parse(kept.envelope_from) as string[];
    assert.deepEqual(JSON.parse(kept.envelope_to), to);
    assert.deepEqual(senders.map((from) => t.returnPaths.verify(from)), to.map((_, recipientIndex) => ({ ok: true, messageId: id, recipientIndex })));
    assert.ok(senders.every((from) => from.endsWith('@mr-bounces.sandbox.mailroom.test')));
  });

  it('retries a temporary failure with backoff, recording every attempt, and marks it failed when attempts run out', async () => {
    const { message_id: id } = await send([sim('tempfail'), 'ok@example.com']);
    await jobDone(id);
    assert.deepEqual(await statusOf(id, 'ok@example.com'), ['delivered', null]);
    const [status, error] = await statusOf(id, sim('tempfail'));
    assert.equal(status, 'failed');
    assert.match(error!, /^Gave up after 3 attempts; last reply: 451 4\.3\.0 /);
    const attempts = (await t.store.deliveryAttempts.listForMessage(id)).filter((a) => a.recipient === sim('tempfail'));
    assert.deepEqual(attempts.map((a) => [a.attempt, a.outcome]), [[1, 'temporary'], [2, 'temporary'], [3, 'temporary']]);
    // The delivered recipient was tried once only: retries go to the recipients still pending.
    assert.equal((await t.store.deliveryAttempts.listForMessage(id)).filter((a) => a.recipient === 'ok@example.com').length, 1);
    // Backoff: base 20 ms, equal jitter, so at least 10 ms, then 20 ms, between attempts.
    const gaps = attempts.slice(1).map((a, i) => Date.parse(a.created_at) - Date.parse(attempts[i]!.created_at));
    assert.ok(gaps[0]! >= 10 && gaps[1]! >= 20, `gaps ${gaps.join(', ')} ms`);
    assert.deepEqual(await events(id), [['delivered', 'ok@example.com'], ['failed', sim('tempfail')]]);
  });

  it('records the suppressed and failed recipients of acceptance as events', async () => {
    await t.store.suppressions.add({ workspace_id: t.workspaceId, email: 'gone@example.com', reason: 'hard_bounce', source_message_id: null, created_at: nowIso() });
    const suppressed = await send(['gone@example.com']);
    assert.equal(suppressed.status, 'suppressed');
    const failed = await send(['ada@example.com'], { from_email: 'hello@unverified.example' });
    assert.equal(failed.status, 'failed');
    assert.deepEqual(await events(suppressed.message_id), [['suppressed', 'gone@example.com']]);
    assert.deepEqual(await events(failed.message_id), [['failed', 'ada@example.com']]);
    const payload = JSON.parse((await t.store.messageEvents.listForMessage(failed.message_id))[0]!.payload);
    assert.equal(payload.error, failed.error);
    assert.equal(JSON.parse((await t.store.messageEvents.listForMessage(suppressed.message_id))[0]!.payload).reason, 'hard_bounce');
  });
});

describe('delivery worker: checks just before the hand-over', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000', WORKER_POLL_MS: '20' });
  });
  after(() => t.close());

  it('never hands a recipient suppressed since acceptance to the provider, and fails a send whose domain can no longer send', async () => {
    // Accepted while nothing stood in the way…
    const domain = await t.store.domains.findByName(t.workspaceId, 'acme.example');
    assert.equal(domain, undefined);
    const first = (await t.call('POST', '/v1/send', { body: sendBody({ to: ['later-suppressed@example.com', 'fine@example.com'] }) })).json().data;
    assert.equal(first.status, 'sent');
    // …then the address joins the suppression list before any worker runs.
    await t.store.suppressions.add({ workspace_id: t.workspaceId, email: 'later-suppressed@example.com', reason: 'complaint', source_message_id: null, created_at: nowIso() });

    // A send from a domain that was verified at acceptance, and is not any more.
    const now = nowIso();
    await t.store.domains.insert({
      id: 'dom_check', workspace_id: t.workspaceId, domain: 'acme.example', status: 'verified', dkim_selector: 's', dkim_private_key: 'x', dkim_public_key: 'y',
      return_path_domain: 'mr-bounces.acme.example', verification_error: null, created_at: now, verified_at: now, last_checked_at: now, upstream_ids: null, open_tracking: 0, click_tracking: 0, tracking_domain: null, tracking_domain_status: null,
    });
    const second = (await t.call('POST', '/v1/send', { body: sendBody({ to: ['ada@example.com'], from_email: 'hello@acme.example' }) })).json().data;
    assert.equal(second.status, 'sent');
    await t.store.domains.updateVerification('dom_check', { status: 'failed', verification_error: 'DKIM record missing', verified_at: null, last_checked_at: now });

    const worker = createDeliveryWorker({ store: t.store, router: createProvider(t.config, t.store), config: t.config, logger: silent, returnPaths: t.returnPaths });
    worker.start();
    try {
      for (const id of [first.message_id, second.message_id]) {
        await waitFor(async () => (await t.store.messages.findJobByMessage(id))?.state === 'done', 'the job to finish');
      }
    } finally {
      await worker.stop();
    }
    const entry = (id: string, to: string) => t.store.logs.findSendEntry(id, to);
    assert.deepEqual([(await entry(first.message_id, 'later-suppressed@example.com'))?.status, (await entry(first.message_id, 'later-suppressed@example.com'))?.error], ['suppressed', 'Recipient is on the suppression list (complaint)']);
    assert.equal((await entry(first.message_id, 'fine@example.com'))?.status, 'delivered');
    const kept = await t.store.sandboxMessages.find(first.message_id);
    assert.deepEqual(JSON.parse(kept!.envelope_to), ['fine@example.com'], 'the suppressed address never reached the provider');
    const failed = await entry(second.message_id, 'ada@example.com');
    assert.deepEqual([failed?.status, failed?.error], ['failed', 'Sender domain acme.example is not verified; publish its DNS records and verify it first']);
    assert.equal(await t.store.sandboxMessages.find(second.message_id), undefined, 'nothing was handed over');
    const types = (await t.store.messageEvents.listForMessage(first.message_id)).map((e) => e.type).sort();
    assert.deepEqual(types, ['delivered', 'suppressed']);
    assert.deepEqual((await t.store.messageEvents.listForMessage(second.message_id)).map((e) => e.type), ['failed']);
  });
});
