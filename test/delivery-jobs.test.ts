import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Db } from '../src/db/database.js';
import { writeAcceptedSends } from '../src/sending/acceptance/accepted-sends.js';
import { createStore } from '../src/composition/store.js';
import { acceptedSend } from './helpers/accepted-send.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const at = (second: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, second)).toISOString();

describe('delivery jobs: claiming with a lease', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());
  beforeEach(async () => {
    await t.db.deleteFrom('delivery_jobs').execute();
  });

  /** `count` accepted sends whose jobs fall due at `availableAt`; returns their jobs' keys (message ids) in due order. */
  async function enqueue(count: number, availableAt = at(0)): Promise<string[]> {
    const sends = Array.from({ length: count }, () => acceptedSend(t.workspaceId, 1));
    for (const send of sends) send.job!.available_at = availableAt;
    assert.deepEqual(await writeAcceptedSends(t.store, sends), sends.map(() => ({ ok: true, queued: true })));
    return sends.map((s) => s.job!.message_id);
  }

  const claim = (owner: string, now: string, limit = 100, leaseSeconds = 60) =>
    t.store.deliveryJobs.claim({ owner, now, leaseUntil: new Date(Date.parse(now) + leaseSeconds * 1000).toISOString(), limit });

  it('claims due pending jobs, oldest first, leasing them and counting the attempt', async () => {
    const due = await enqueue(3, at(0));
    await enqueue(2, at(30)); // not yet due
    const claimed = await claim('worker-a', at(10), 2);
    assert.deepEqual(claimed.map((j) => j.message_id), due.slice(0, 2));
    for (const job of claimed) {
      assert.equal(job.lease_owner, 'worker-a');
      assert.equal(job.lease_expires_at, at(70));
      assert.equal(Number(job.attempts), 1);
    }
    assert.deepEqual((await claim('worker-b', at(10))).map((j) => j.message_id), due.slice(2), 'leased jobs are not claimed again');
  });

  it('lets another worker take over a job whose lease expired, and only the current owner finish it', async () => {
    const [id] = await enqueue(1);
    await claim('worker-a', at(0), 1, 30);
    assert.deepEqual(await claim('worker-b', at(29)), [], 'still leased');
    const [taken] = await claim('worker-b', at(30));
    assert.equal(taken!.message_id, id);
    assert.equal(Number(taken!.attempts), 2);
    assert.equal(await t.store.deliveryJobs.complete(id!, 'worker-a', at(31)), false, 'the old owner lost it');
    assert.equal(await t.store.deliveryJobs.reschedule(id!, 'worker-a', at(90), 'late', at(31)), false);
    assert.equal(await t.store.deliveryJobs.complete(id!, 'worker-b', at(31)), true);
    assert.deepEqual(await claim('worker-c', at(1000)), [], 'a finished job is never claimed again');
  });

  it('reschedules a job for later, keeping the error, and releases what a stopping worker holds', async () => {
    const [first, second] = await enqueue(2);
    await claim('worker-a', at(0));
    assert.equal(await t.store.deliveryJobs.reschedule(first!, 'worker-a', at(120), '421 try again later', at(1)), true);
    assert.equal(await t.store.deliveryJobs.releaseAll('worker-a', at(2)), 1);
    assert.deepEqual((await claim('worker-b', at(3))).map((j) => j.message_id), [second], 'released at once; the rescheduled one waits');
    assert.equal(await t.store.deliveryJobs.complete(second!, 'worker-b', at(4)), true);
    const again = await claim('worker-b', at(120));
    assert.deepEqual(again.map((j) => [j.message_id, j.last_error]), [[first, '421 try again later']]);
  });

  it('never hands one job to two workers claiming at the same time on their own connections', async () => {
    const ids = await enqueue(200);
    const connections: Db[] = Array.from({ length: 4 }, () => openDatabase(loadConfig(t.storeEnv)));
    try {
      // Connected before the race starts, so no claimer is still connecting while the others drain the queue.
      await Promise.all(connections.map((db) => createStore(db).ping()));
      const claimedBy = await Promise.all(
        connections.map(async (db, worker) => {
          const jobs = createStore(db).deliveryJobs;
          const mine: string[] = [];
          for (;;) {
            const batch = await jobs.claim({ owner: `worker-${worker}`, now: at(0), leaseUntil: at(60), limit: 7 });
            if (batch.length === 0) return mine;
            mine.push(...batch.map((j) => j.message_id));
            // More than there are: jobs claimed again, which could go on for ever. The count below fails instead.
            if (mine.length > ids.length) return mine;
          }
        }),
      );
      const all = claimedBy.flat();
      assert.equal(all.length, 200, 'every job claimed exactly once');
      assert.deepEqual(new Set(all), new Set(ids));
      assert.ok(claimedBy.filter((mine) => mine.length > 0).length > 1, 'the claimers really ran side by side');
    } finally {
      for (const db of connections) await db.destroy();
    }
  });
});
