import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOutcomeRecorder } from '../src/delivery/outcome-recorder.js';
import type { JobResult } from '../src/delivery/delivery-attempt.js';
import { writeAcceptedSends } from '../src/sending/acceptance/accepted-sends.js';
import { acceptedSend } from './helpers/accepted-send.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';

// PostgreSQL only (its row locks): two workers' outcome batches moving entries of two workspaces
// in opposite orders once took the same counter rows' locks in opposite orders and deadlocked.
describe('counter updates of concurrent transactions', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000' });
  });
  after(() => t.close());

  it('never deadlock: each transaction applies its counter changes in one order, at its end or with its entries', async () => {
    const other = await t.newWorkspace();
    const workspaceA = t.workspaceId;
    const ids: Record<'a' | 'b', string[]> = { a: [], b: [] };
    for (let i = 0; i < 40; i++) {
      for (const [w, key] of [['a', t.apiKey], ['b', other.apiKey]] as const) {
        const res = await t.call('POST', '/v1/send', { key, body: sendBody({ to: [`x${i}@example.com`] }) });
        ids[w].push(res.json().data.message_id);
      }
    }
    const now = new Date();
    const jobs = await t.store.deliveryJobs.claim({ owner: 'w1', now: now.toISOString(), leaseUntil: new Date(now.getTime() + 60_000).toISOString(), limit: 80 });
    const jobOf = new Map(jobs.map((j) => [j.message_id, j]));
    const second = [...ids.a.slice(20), ...ids.b.slice(20)];
    await t.db.updateTable('delivery_jobs').set({ lease_owner: 'w2' }).where('message_id', 'in', second).execute();
    const resultFor = async (messageId: string, owner: string): Promise<JobResult> => {
      const [entry] = await t.store.logs.listSendEntries([messageId]);
      return { job: { ...jobOf.get(messageId)!, lease_owner: owner }, results: [{ entry: entry!, outcome: 'delivered', detail: '250 ok' }] };
    };
    // Worker 1 records workspace A's outcome first, then B's; worker 2 the other way round.
    const w1: JobResult[] = [];
    const w2: JobResult[] = [];
    for (let i = 0; i < 20; i++) w1.push(await resultFor(ids.a[i]!, 'w1'), await resultFor(ids.b[i]!, 'w1'));
    for (let i = 20; i < 40; i++) w2.push(await resultFor(ids.b[i]!, 'w2'), await resultFor(ids.a[i]!, 'w2'));

    const failures: string[] = [];
    const transaction = t.store.transaction.bind(t.store);
    t.store.transaction = (work) => transaction(work).catch((error: { code?: string; message: string }) => {
      failures.push(`${error.code} ${error.message}`);
      throw error;
    });
    // Beside them, batches of new sends of both workspaces, counted in the statement that inserts them
    // (logs-repository.ts, lastCount): the same counter rows, locked in the same order.
    const accepted = Array.from({ length: 10 }, (_, i) => {
      const pair = [acceptedSend(workspaceA, 1), acceptedSend(other.workspaceId, 1)];
      return i % 2 === 0 ? pair : pair.reverse();
    });
    try {
      const r1 = createOutcomeRecorder(t.store, { owner: 'w1', providerName: 'test', retry: t.config.retry });
      const r2 = createOutcomeRecorder(t.store, { owner: 'w2', providerName: 'test', retry: t.config.retry });
      const written = await Promise.all([
        ...w1.map((r) => r1.record(r)),
        ...w2.map((r) => r2.record(r)),
        ...accepted.map((sends) => writeAcceptedSends(t.store, sends)),
      ]);
      assert.ok(written.slice(-accepted.length).flat().every((result) => result !== undefined && typeof result === 'object' && 'ok' in result && result.ok));
    } finally {
      t.store.transaction = transaction;
    }
    assert.deepEqual(failures, [], 'no transaction failed (a deadlock would be 40P01)');
    for (const key of [t.apiKey, other.apiKey]) {
      const stats = (await t.call('GET', '/v1/send/stats', { key })).json().data;
      assert.deepEqual([stats.total_sent, stats.delivered], [50, 40]);
      assert.equal(Number((await t.call('GET', '/v1/send/logs?type=send&status=sent', { key })).headers['x-total-count']), 10);
    }
  });
});
