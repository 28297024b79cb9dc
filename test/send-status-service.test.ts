import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Db } from '../src/db/database.js';
import { createStore } from '../src/composition/store.js';
import { createSendStatusService, type StatusMove } from '../src/sending/send-status-service.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { TEST_STORE } from './helpers/test-store.js';

const DELIVERED: StatusMove = { to: 'delivered', detail: null };

describe('recording a recipient outcome', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000' });
  });
  after(() => t.close());

  const statuses = createSendStatusService;
  const send = async (to: string[]) => (await t.call('POST', '/v1/send', { body: sendBody({ to }) })).json().data.message_id as string;
  const stats = async () => (await t.call('GET', '/v1/send/stats')).json().data;
  const entry = (messageId: string, recipient: string) => t.store.logs.findSendEntry(messageId, recipient);
  const total = async (status: string) => Number((await t.call('GET', `/v1/send/logs?type=send&status=${status}`)).headers['x-total-count']);

  it('moves the entry and the stats counters together, and records a repeat once', async () => {
    const service = statuses(t.store);
    const before = await stats();
    const messageId = await send(['one@example.com', 'two@example.com']);
    assert.equal(await service.record(messageId, 'one@example.com', DELIVERED), 'move');
    assert.equal((await entry(messageId, 'one@example.com'))!.status, 'delivered');
    assert.equal((await entry(messageId, 'two@example.com'))!.status, 'sent');
    assert.equal(await service.record(messageId, 'one@example.com', DELIVERED), 'duplicate');
    const events = await t.store.messageEvents.listForMessage(messageId);
    assert.equal(events.length, 1, 'the repeat publishes no second event');
    assert.deepEqual(JSON.parse(events[0]!.payload), {
      id: events[0]!.id, event: 'delivered', message_id: messageId, to: 'one@example.com', from: 'hello@sandbox.mailroom.test',
      subject: 'Hello', timestamp: events[0]!.created_at, workspace_id: t.workspaceId, tags: {},
    });
    const after = await stats();
    assert.equal(after.total_sent, before.total_sent + 2, 'still two sends');
    assert.equal(after.delivered, before.delivered + 1, 'counted once');
    assert.equal(await total('delivered'), after.delivered, 'stats agree with the log');
    assert.equal(await total('sent'), (await t.store.counters.totals(t.workspaceId)).find((c) => c.type === 'send' && c.status === 'sent')!.count);
  });

  it('lets a delivered message bounce later, keeps the detail, and refuses to move back', async () => {
    const service = statuses(t.store);
    const messageId = await send(['late@example.com']);
    assert.equal(await service.record(messageId, 'late@example.com', DELIVERED), 'move');
    assert.equal(await service.record(messageId, 'late@example.com', { to: 'bounced', detail: '550 5.1.1 user unknown' }), 'move');
    assert.equal(await service.record(messageId, 'late@example.com', DELIVERED), 'refused');
    const stored = await entry(messageId, 'late@example.com');
    assert.deepEqual([stored!.status, stored!.error], ['bounced', '550 5.1.1 user unknown']);
    const bounce = JSON.parse((await t.store.messageEvents.listForMessage(messageId))[1]!.payload);
    assert.deepEqual([bounce.event, bounce.bounce_type, bounce.bounce_subtype, bounce.diagnostic_code], ['bounced', 'Permanent', 'General', '550 5.1.1 user unknown']);
    assert.equal(await total('bounced'), (await stats()).bounced);
  });

  it('answers unknown for a recipient or message it has never seen, changing nothing', async () => {
    const service = statuses(t.store);
    const messageId = await send(['known@example.com']);
    const before = await stats();
    assert.equal(await service.record(messageId, 'stranger@example.com', DELIVERED), 'unknown');
    assert.equal(await service.record('msg_nope', 'known@example.com', DELIVERED), 'unknown');
    assert.deepEqual(await stats(), before);
  });

  it('lets exactly one of many simultaneous outcomes win, and counts it once', async () => {
    const messageId = await send(['race@example.com']);
    const before = await stats();
    // PostgreSQL: four connections really racing. SQLite: one connection per thread is how it runs
    // (transactions queue on it); two connections on one thread would wait on each other's lock forever.
    const connections: Db[] = TEST_STORE === 'postgres' ? Array.from({ length: 4 }, () => openDatabase(loadConfig(t.storeEnv))) : [];
    const storeFor = (i: number) => (connections.length ? createStore(connections[i % connections.length]!) : t.store);
    try {
      const moves: Record<string, StatusMove> = { delivered: DELIVERED, failed: { to: 'failed', detail: 'x' }, suppressed: { to: 'suppressed', detail: 'x', reason: 'manual' } };
      const outcomes = ['delivered', 'failed', 'delivered', 'failed', 'suppressed', 'delivered', 'failed', 'suppressed'] as const;
      const verdicts = await Promise.all(outcomes.map((to, i) => statuses(storeFor(i)).record(messageId, 'race@example.com', moves[to]!)));
      assert.equal(verdicts.filter((v) => v === 'move').length, 1, `verdicts: ${verdicts.join(', ')}`);
      const won = outcomes[verdicts.indexOf('move')]!;
      assert.equal((await entry(messageId, 'race@example.com'))!.status, won);
      const after = await stats();
      assert.equal(after.total_sent, before.total_sent);
      assert.equal(after.delivered + after.failed + after.suppressed, before.delivered + before.failed + before.suppressed + 1);
      assert.equal(await total(won), after[won]);
      const events = await t.store.messageEvents.listForMessage(messageId);
      assert.deepEqual(events.map((e) => e.type), [won], 'one event, for the move that won');
    } finally {
      for (const db of connections) await db.destroy();
    }
  });
});
