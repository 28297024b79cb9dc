/**
 * POST /v1/send/batch (issue, point 7): 1–100 sends, results in order, all or
 * nothing at validation, one request for the rate limit. Through the real app,
 * on the store of the run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { writeAcceptedSends } from '../src/sending/acceptance/accepted-sends.js';
import type { AcceptedSend } from '../src/sending/acceptance/accepted-sends.js';
import { createSendService } from '../src/sending/send-service.js';
import type { SendInput } from '../src/sending/send-request.js';
import { acceptedSend } from './helpers/accepted-send.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { createTestApp, sendBody, writtenRows, type TestApp } from './helpers/test-app.js';
import { addVerifiedDomain } from './helpers/verified-domain.js';
import { waitFor } from './helpers/wait-for.js';

type Result = { message_id: string; status: string; error?: string };

const items = (n: number, overrides: (i: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: n }, (_, i) => sendBody({ to: [`user${i}@example.com`], subject: `Hello ${i}`, ...overrides(i) }));

describe('POST /v1/send/batch', () => {
  let dns: TestDnsServer;
  let t: TestApp;
  let own: { id: string };
  before(async () => {
    dns = await startDnsServer();
    // No worker here: its writes would race the row counts that show a refused batch wrote nothing.
    t = await createTestApp({ DNS_SERVERS: dns.address, RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000' });
    own = await addVerifiedDomain(t, dns, 'own.example');
  });
  after(async () => {
    await t.close();
    await dns.close();
  });

  it('answers one result per send, in order, each message written with its entries', async () => {
    const body = items(100, (i) => (i === 1 ? { to: ['a@example.com', 'b@example.com'], cc: ['c@example.com'] } : {}));
    const res = await t.call('POST', '/v1/send/batch', { body });
    assert.equal(res.statusCode, 200, res.body);
    const results = res.json().data as Result[];
    assert.equal(results.length, 100);
    assert.equal(new Set(results.map((r) => r.message_id)).size, 100);
    for (const [i, result] of results.entries()) {
      assert.equal(result.status, 'sent');
      const message = await t.db.selectFrom('messages').selectAll().where('id', '=', result.message_id).executeTakeFirstOrThrow();
      assert.equal(message.subject, `Hello ${i}`, 'result i is the message of item i');
    }
    const entries = await t.db.selectFrom('log_entries').select('recipient').where('message_id', '=', results[1]!.message_id).orderBy('recipient').execute();
    assert.deepEqual(entries.map((e) => e.recipient), ['a@example.com', 'b@example.com', 'c@example.com']);

  });

  it('is delivered by the worker as any send (sandbox provider)', async () => {
    const w = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000', WORKER_POLL_MS: '20' }, { worker: true });
    try {
      const res = await w.call('POST', '/v1/send/batch', { body: items(20) });
      assert.equal(res.statusCode, 200, res.body);
      const ids = (res.json().data as Result[]).map((r) => r.message_id);
      await waitFor(async () => {
        const delivered = await w.db
          .selectFrom('log_entries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('message_id', 'in', ids)
          .where('status', '=', 'delivered')
          .executeTakeFirstOrThrow();
        return Number(delivered.n) === 20;
      }, 'every entry of the batch to be delivered');
    } finally {
      await w.close();
    }
  });

  it('writes nothing when one item is invalid, and names its index', async () => {
    const before = await writtenRows(t.db);
    const res = await t.call('POST', '/v1/send/batch', { body: items(100, (i) => (i === 57 ? { to: [] } : {})) });
    assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error: '[57].to must contain at least one recipient' }]);
    const bad = await t.call('POST', '/v1/send/batch', { body: items(3, (i) => (i === 2 ? { to: ['not an address'] } : {})) });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error, /^\[2\]\.to\[0\] must be a valid email address/);
    // A schema error names the item too.
    const typed = await t.call('POST', '/v1/send/batch', { body: items(5, (i) => (i === 3 ? { to: 'a@example.com' } : {})) });
    assert.deepEqual([typed.statusCode, typed.json().error], [400, '[3].to must be an array']);
    const unknown = await t.call('POST', '/v1/send/batch', { body: items(2, (i) => (i === 1 ? { form_email: 'x' } : {})) });
    assert.deepEqual([unknown.statusCode, unknown.json().error], [400, '[1].form_email is not a supported field']);
    assert.deepEqual(await writtenRows(t.db), before);
  });

  it('takes 1 to 100 sends in an array', async () => {
    const before = await writtenRows(t.db);
    for (const n of [0, 101]) {
      const res = await t.call('POST', '/v1/send/batch', { body: items(n) });
      assert.deepEqual([res.statusCode, res.json().error], [400, `The request body must be an array of 1 to 100 sends (got ${n})`]);
    }
    const notArray = await t.call('POST', '/v1/send/batch', { body: sendBody() });
    assert.deepEqual([notArray.statusCode, notArray.json().error], [400, 'The request body must be an array']);
    assert.deepEqual(await writtenRows(t.db), before);
    const one = await t.call('POST', '/v1/send/batch', { body: items(1) });
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(one.json().data.length, 1);
  });

  it('answers failed for an item whose sender domain may not send, as /v1/send does, and sends the others', async () => {
    const res = await t.call('POST', '/v1/send/batch', { body: items(3, (i) => (i === 1 ? { from_email: 'me@unverified.example' } : {})) });
    assert.equal(res.statusCode, 200, res.body);
    const results = res.json().data as Result[];
    assert.deepEqual(
      results.map((r) => [r.status, r.error]),
      [
        ['sent', undefined],
        ['failed', 'Sender domain unverified.example is not a domain of this workspace; add and verify it first'],
        ['sent', undefined],
      ],
    );
  });

  it('counts as one request of the send class for the rate limit', async () => {
    const first = await t.call('POST', '/v1/send/batch', { body: items(10) });
    const second = await t.call('POST', '/v1/send/batch', { body: items(10) });
    assert.equal(first.headers['x-ratelimit-limit'], '100000');
    assert.equal(Number(first.headers['x-ratelimit-remaining']) - Number(second.headers['x-ratelimit-remaining']), 1);
    const send = await t.call('POST', '/v1/send', { body: sendBody() });
    assert.equal(Number(second.headers['x-ratelimit-remaining']) - Number(send.headers['x-ratelimit-remaining']), 1, 'the same budget as /v1/send');
  });

  it('refuses the whole batch with 403 when a key restricted to one domain is given an item from another', async () => {
    const created = await t.call('POST', '/v1/api-keys', { body: { name: 'shop', permission: 'sending_access', domain_id: own.id } });
    const { key } = created.json().data;
    const before = await writtenRows(t.db);
    const body = items(4, (i) => ({ from_email: i === 2 ? 'hello@sandbox.mailroom.test' : 'Shop <hello@own.example>' }));
    const refused = await t.call('POST', '/v1/send/batch', { key, body });
    assert.deepEqual([refused.statusCode, refused.json()], [403, { success: false, error: 'This API key can only send from own.example' }]);
    assert.deepEqual(await writtenRows(t.db), before);
    const accepted = await t.call('POST', '/v1/send/batch', { key, body: items(2, () => ({ from_email: 'hello@own.example' })) });
    assert.equal(accepted.statusCode, 200, accepted.body);
    assert.deepEqual((accepted.json().data as Result[]).map((r) => r.status), ['sent', 'sent']);
  });

  it('replays the batch for the same Idempotency-Key, sending nothing again', async () => {
    const body = items(5);
    const call = () =>
      t.app.inject({ method: 'POST', url: '/v1/send/batch', headers: { 'x-api-key': t.apiKey, 'idempotency-key': 'batch-1' }, payload: body });
    const first = await call();
    assert.equal(first.statusCode, 200, first.body);
    const before = await writtenRows(t.db);
    const again = await call();
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json());
    assert.deepEqual(await writtenRows(t.db), before);
  });

  it('writes a batch’s sends together or not at all when the writer’s shared transaction fails', async () => {
    const [taken] = await writeAcceptedSends(t.store, [acceptedSend(t.workspaceId, 1)]);
    assert.deepEqual(taken, { ok: true, queued: true });
    const existing = (await t.db.selectFrom('messages').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()).id;
    // A group whose second send reuses a message id (so fails), beside a send of its own.
    const good = { ...acceptedSend(t.workspaceId, 1), group: 'g' };
    const bad = { ...acceptedSend(t.workspaceId, 1, existing), group: 'g' };
    const alone = acceptedSend(t.workspaceId, 1);
    const results = await writeAcceptedSends(t.store, [good, alone, bad]);
    assert.deepEqual(results.map((r) => r.ok), [false, true, false]);
    const written = await t.db.selectFrom('messages').select('id').where('id', 'in', [good.message.id, alone.message.id]).execute();
    assert.deepEqual(written.map((m) => m.id), [alone.message.id], 'the group’s good send is not written without its neighbour');
  });

  it('hands the writer a batch’s sends as one group of their own', async () => {
    const seen: { send: AcceptedSend }[] = [];
    const writer = { write: async (send: AcceptedSend) => (seen.push({ send }), { queued: true }), close: async () => {} };
    const service = createSendService(t.store, writer, t.config);
    await service.acceptBatch(t.workspaceId, items(3) as unknown as SendInput[]);
    await service.acceptBatch(t.workspaceId, items(2) as unknown as SendInput[]);
    const groups = seen.map((s) => s.send.group);
    assert.ok(groups.every((g) => typeof g === 'string'));
    assert.equal(new Set(groups.slice(0, 3)).size, 1);
    assert.equal(new Set(groups.slice(3)).size, 1);
    assert.notEqual(groups[0], groups[3]);
    const single = seen.length;
    await service.accept(t.workspaceId, sendBody() as unknown as SendInput);
    assert.equal(seen[single]!.send.group, undefined, 'a single send is a group of its own');
  });
});
