import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LogEntryView } from '../src/logs/log-service.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';

type Entry = LogEntryView;

describe('GET /v1/send/logs and /v1/send/stats', () => {
  let t: TestApp;
  let suppressedMessage: string;
  let failedMessage: string;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000' });
    await t.store.suppressions.add({ workspace_id: t.workspaceId, email: 'blocked@example.com', reason: 'complaint', source_message_id: null, created_at: new Date().toISOString() });
    // 60 sent recipients over 30 messages, 1 suppressed, 3 failed.
    for (let i = 0; i < 30; i++) {
      await t.call('POST', '/v1/send', { body: sendBody({ to: [`a${i}@example.com`, `b${i}@example.com`], subject: `Message ${i}` }) });
    }
    suppressedMessage = (await t.call('POST', '/v1/send', { body: sendBody({ to: ['blocked@example.com'] }) })).json().data.message_id;
    failedMessage = (await t.call('POST', '/v1/send', { body: sendBody({ from_email: 'x@nowhere.example', to: ['f1@example.com', 'f2@example.com', 'f3@example.com'] }) })).json().data.message_id;
  });
  after(() => t.close());

  it('lists 50 entries by default, newest first, with the total in X-Total-Count', async () => {
    const res = await t.call('GET', '/v1/send/logs');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-total-count'], '64');
    const entries: Entry[] = res.json().data;
    assert.equal(entries.length, 50);
    assert.deepEqual(Object.keys(entries[0]!).sort(), ['created_at', 'error', 'from_email', 'id', 'message_id', 'status', 'subject', 'tags', 'to', 'type']);
    const order = entries.map((e) => `${e.created_at} ${e.id}`);
    assert.deepEqual(order, [...order].sort().reverse());
    assert.equal(entries[0]!.message_id, failedMessage);
    for (const entry of entries) {
      assert.match(entry.id, /^log_[0-9a-z]{26}$/);
      assert.match(entry.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it('pages with limit and offset without overlap or gap', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 64; offset += 25) {
      const res = await t.call('GET', `/v1/send/logs?limit=25&offset=${offset}`);
      seen.push(...res.json().data.map((e: Entry) => e.id));
    }
    assert.equal(seen.length, 64);
    assert.equal(new Set(seen).size, 64);
    const all = (await t.call('GET', '/v1/send/logs?limit=100')).json().data.map((e: Entry) => e.id);
    assert.deepEqual(seen, all);
    const beyond = await t.call('GET', '/v1/send/logs?offset=1000');
    assert.deepEqual(beyond.json(), { success: true, data: [] });
    assert.equal(beyond.headers['x-total-count'], '64');
  });

  it('filters by status and type, with a matching total', async () => {
    const failed = await t.call('GET', '/v1/send/logs?status=failed');
    assert.equal(failed.headers['x-total-count'], '3');
    assert.deepEqual(failed.json().data.map((e: Entry) => [e.message_id, e.error]), [
      [failedMessage, 'Sender domain nowhere.example is not a domain of this workspace; add and verify it first'],
      [failedMessage, 'Sender domain nowhere.example is not a domain of this workspace; add and verify it first'],
      [failedMessage, 'Sender domain nowhere.example is not a domain of this workspace; add and verify it first'],
    ]);
    const suppressed = await t.call('GET', '/v1/send/logs?status=suppressed&type=send');
    assert.equal(suppressed.headers['x-total-count'], '1');
    assert.equal(suppressed.json().data[0].message_id, suppressedMessage);
    assert.equal(suppressed.json().data[0].to, 'blocked@example.com');
    const sent = await t.call('GET', '/v1/send/logs?status=sent&limit=100');
    assert.equal(sent.headers['x-total-count'], '60');
    assert.ok(sent.json().data.every((e: Entry) => e.status === 'sent' && e.error === null));
    const bounces = await t.call('GET', '/v1/send/logs?type=bounce');
    assert.deepEqual([bounces.headers['x-total-count'], bounces.json().data], ['0', []]);
  });

  const badQueries: [string, string][] = [
    ['limit=0', 'limit must be at least 1'],
    ['limit=101', 'limit must be at most 100'],
    ['limit=ten', 'limit must be an integer'],
    ['limit=1.5', 'limit must be an integer'],
    ['offset=-1', 'offset must be at least 0'],
    ['offset=x', 'offset must be an integer'],
    ['type=email', 'type must be one of send, bounce, complaint'],
    ['status=opened', 'status must be one of sent, delivered, bounced, complained, suppressed, failed'],
  ];
  for (const [query, error] of badQueries) {
    it(`refuses ?${query} with 400`, async () => {
      const res = await t.call('GET', `/v1/send/logs?${query}`);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { success: false, error });
    });
  }

  it('accepts the boundaries limit=1 and limit=100', async () => {
    assert.equal((await t.call('GET', '/v1/send/logs?limit=1')).json().data.length, 1);
    assert.equal((await t.call('GET', '/v1/send/logs?limit=100')).json().data.length, 64);
  });

  it('reports stats that agree with the logs', async () => {
    const res = await t.call('GET', '/v1/send/stats');
    assert.equal(res.statusCode, 200);
    const stats = res.json().data;
    assert.deepEqual(stats, { total_sent: 64, delivered: 0, bounced: 0, complained: 0, suppressed: 1, failed: 3 });
    const count = async (query: string) => (await t.call('GET', `/v1/send/logs?limit=100&${query}`)).json().data.length;
    assert.equal(stats.total_sent, await count('type=send'));
    assert.equal(stats.suppressed, await count('type=send&status=suppressed'));
    assert.equal(stats.failed, await count('type=send&status=failed'));
    assert.equal(stats.delivered, await count('type=send&status=delivered'));
    assert.equal(stats.bounced, await count('type=send&status=bounced'));
    assert.equal(stats.complained, await count('type=complaint'));
  });

  it('reads stats from counters kept as entries are written, not by counting the log', async () => {
    const other = await t.newWorkspace();
    await t.call('POST', '/v1/send', { key: other.apiKey, body: sendBody({ to: ['one@example.com', 'two@example.com'] }) });
    // Remove the log rows behind the counters' back: a COUNT(*) would drop to 0, the counters do not.
    await t.db.deleteFrom('log_entries').where('workspace_id', '=', other.workspaceId).execute();
    const stats = (await t.call('GET', '/v1/send/stats', { key: other.apiKey })).json().data;
    assert.equal(stats.total_sent, 2);
    const counters = await t.db.selectFrom('log_counters').selectAll().where('workspace_id', '=', other.workspaceId).execute();
    assert.deepEqual(counters.map((c) => [c.type, c.status, Number(c.count)]), [['send', 'sent', 2]]);
  });

  it('starts every workspace at zero', async () => {
    const fresh = await t.newWorkspace();
    const res = await t.call('GET', '/v1/send/stats', { key: fresh.apiKey });
    assert.deepEqual(res.json(), { success: true, data: { total_sent: 0, delivered: 0, bounced: 0, complained: 0, suppressed: 0, failed: 0 } });
    const logs = await t.call('GET', '/v1/send/logs', { key: fresh.apiKey });
    assert.deepEqual([logs.headers['x-total-count'], logs.json()], ['0', { success: true, data: [] }]);
  });
});
