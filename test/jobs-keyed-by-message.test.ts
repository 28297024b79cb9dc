import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import * as jobsKeyedByMessage from '../src/db/migrations/0023-jobs-keyed-by-message.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { TEST_STORE } from './helpers/test-store.js';

const LEASE_ENDED = '2030-01-01T00:01:00.000Z';

describe('migration 0023: the outbox keyed by its message', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('keeps every job, its lease, attempts and pending recipients, and the job stays claimable and cascades with its message', async () => {
    const db = t.db as unknown as Kysely<unknown>;
    const accepted: string[] = [];
    for (let i = 0; i < 2; i++) {
      const sent = await t.call('POST', '/v1/send', { body: sendBody() });
      assert.equal(sent.statusCode, 200, sent.body);
      accepted.push(sent.json().data.message_id);
    }
    // Back to the shape before it, and a job as the code before wrote one: an id of its own, leased, tried twice.
    await jobsKeyedByMessage.down(db);
    const now = new Date().toISOString();
    await sql`insert into messages (id, workspace_id, from_name, from_address, subject, text, recipients, created_at)
      values ('msg_legacy', ${t.workspaceId}, '', 'orders@example.com', 'Legacy', 'Hi', '[]', ${now})`.execute(db);
    await sql`insert into delivery_jobs (id, message_id, workspace_id, state, attempts, available_at, lease_owner, lease_expires_at, last_error, created_at, updated_at, pending_recipients)
      values ('job_legacy', 'msg_legacy', ${t.workspaceId}, 'pending', 2, ${now}, 'worker-old', ${LEASE_ENDED}, '421 later', ${now}, ${now}, '["b@example.net"]')`.execute(db);

    await jobsKeyedByMessage.up(db);

    const columns = (await t.db.introspection.getTables()).find((table) => table.name === 'delivery_jobs')!.columns.map((c) => c.name);
    assert.ok(!columns.includes('id') && columns.includes('message_id'), columns.join(', '));
    const rows = await t.db.selectFrom('delivery_jobs').selectAll().orderBy('message_id').execute();
    assert.deepEqual(rows.map((r) => r.message_id).sort(), [...accepted, 'msg_legacy'].sort());
    const legacy = rows.find((r) => r.message_id === 'msg_legacy')!;
    assert.deepEqual(
      [legacy.workspace_id, legacy.state, Number(legacy.attempts), legacy.lease_owner, legacy.lease_expires_at, legacy.last_error, legacy.pending_recipients],
      [t.workspaceId, 'pending', 2, 'worker-old', LEASE_ENDED, '421 later', '["b@example.net"]'],
    );

    // Taken over once its lease ends, and finished by its message's id.
    const claimed = await t.store.deliveryJobs.claim({ owner: 'worker-new', now: LEASE_ENDED, leaseUntil: '2030-01-01T00:02:00.000Z', limit: 10 });
    assert.deepEqual(claimed.map((j) => j.message_id).sort(), [...accepted, 'msg_legacy'].sort());
    assert.equal(Number(claimed.find((j) => j.message_id === 'msg_legacy')!.attempts), 3);
    assert.equal(await t.store.deliveryJobs.complete('msg_legacy', 'worker-old', LEASE_ENDED), false, 'the old owner lost it');
    assert.equal(await t.store.deliveryJobs.complete('msg_legacy', 'worker-new', LEASE_ENDED), true);

    // The foreign key came through the rebuild: a message's job goes with it.
    await t.db.deleteFrom('messages').where('id', '=', 'msg_legacy').execute();
    assert.equal((await t.db.selectFrom('delivery_jobs').select('message_id').where('message_id', '=', 'msg_legacy').execute()).length, 0);
  });

  it('leaves the outbox one index besides its key', async () => {
    if (TEST_STORE === 'sqlite') {
      // WITHOUT ROWID: the rows live in the key's B-tree, so the claim index is the only other one.
      const table = await sql<{ wr: number }>`select wr from pragma_table_list where name = 'delivery_jobs'`.execute(t.db);
      assert.equal(table.rows[0]?.wr, 1);
      const indexes = await sql<{ name: string; origin: string }>`select name, origin from pragma_index_list('delivery_jobs') order by name`.execute(t.db);
      assert.deepEqual(indexes.rows.map((i) => [i.name, i.origin]), [['delivery_jobs_due_idx', 'c'], ['sqlite_autoindex_delivery_jobs_1', 'pk']]);
    } else {
      const indexes = await sql<{ indexname: string }>`select indexname from pg_indexes where tablename = 'delivery_jobs' order by indexname`.execute(t.db);
      assert.deepEqual(indexes.rows.map((i) => i.indexname), ['delivery_jobs_due_idx', 'delivery_jobs_pkey']);
    }
    const due = TEST_STORE === 'sqlite'
      ? await sql<{ name: string }>`select name from pragma_index_info('delivery_jobs_due_idx') order by seqno`.execute(t.db)
      : await sql<{ name: string }>`select a.attname as name from pg_index i join pg_class c on c.oid = i.indexrelid join lateral unnest(i.indkey) with ordinality k(attnum, n) on true join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum where c.relname = 'delivery_jobs_due_idx' order by k.n`.execute(t.db);
    assert.deepEqual(due.rows.map((c) => c.name), ['state', 'available_at', 'message_id']);
  });
});
