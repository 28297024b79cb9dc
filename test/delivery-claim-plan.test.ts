import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../src/db/schema.js';
import { createDeliveryJobsRepository } from '../src/repositories/delivery-jobs-repository.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const PENDING = 20_000;
const NOW = '2030-01-01T01:00:00.000Z';

/**
 * PostgreSQL plans a statement from statistics taken earlier; a queue's grow faster than they are
 * taken. This runs on PostgreSQL in both suite runs: it is that planner's behaviour under test.
 */
describe('delivery jobs: the claim on PostgreSQL reads the due index in order, whatever the statistics say', () => {
  let t: TestApp;
  let pool: pg.Pool;
  let db: Kysely<Database>;
  const notices: string[] = [];

  before(async () => {
    t = await createTestApp({}, { store: 'postgres' });
    // Statistics of an empty queue, then a burst: as a new installation, or a year of `done` jobs before one.
    await sql`analyze delivery_jobs`.execute(t.db);
    await sql`
      insert into messages (id, workspace_id, from_name, from_address, subject, text, recipients, created_at)
      select 'msg_plan_' || lpad(n::text, 6, '0'), ${t.workspaceId}, '', 'a@example.com', 's', 't', '[]', ${NOW}
      from generate_series(1, ${PENDING}) n`.execute(t.db);
    await sql`
      insert into delivery_jobs (id, message_id, workspace_id, state, attempts, available_at, created_at, updated_at)
      select 'job_plan_' || lpad(n::text, 6, '0'), 'msg_plan_' || lpad(n::text, 6, '0'), ${t.workspaceId}, 'pending', 0,
        '2030-01-01T00:00:00.000Z', ${NOW}, ${NOW}
      from generate_series(1, ${PENDING}) n`.execute(t.db);
    // One connection, so that auto_explain, loaded on it, sees the claim and tells its plan as a notice.
    pool = new pg.Pool({ connectionString: t.storeEnv.DATABASE_URL, max: 1 });
    pool.on('connect', (client) => client.on('notice', (notice) => notices.push(notice.message ?? '')));
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    await sql`load 'auto_explain'`.execute(db);
    await sql`set auto_explain.log_min_duration = 0`.execute(db);
    await sql`set auto_explain.log_level = notice`.execute(db);
  });
  after(async () => {
    await db?.destroy();
    await t?.close();
  });

  it('plans the claim as a bitmap scan of every pending job, sorted, when left to those statistics', async () => {
    // The premise: without the repository's settings this server sorts the whole backlog for 8 jobs.
    notices.length = 0;
    await sql`
      select id from delivery_jobs
      where state = 'pending' and available_at <= ${NOW} and (lease_expires_at is null or lease_expires_at <= ${NOW})
      order by available_at, id limit 8 for update skip locked`.execute(db);
    const plan = notices.join('\n');
    assert.match(plan, /Sort/, plan);
    assert.match(plan, /Bitmap Heap Scan on delivery_jobs/, plan);
  });

  it('claims the oldest due jobs through the index, stopping at the limit', async () => {
    notices.length = 0;
    const claimed = await createDeliveryJobsRepository(db).claim({ owner: 'worker-a', now: NOW, leaseUntil: '2030-01-01T01:01:00.000Z', limit: 8 });
    assert.deepEqual(
      claimed.map((job) => job.id),
      Array.from({ length: 8 }, (_, i) => `job_plan_${String(i + 1).padStart(6, '0')}`),
    );
    const plan = notices.find((notice) => notice.includes('update "delivery_jobs"')) ?? notices.join('\n');
    assert.match(plan, /Index Scan using delivery_jobs_due_idx/, plan);
    assert.doesNotMatch(plan, /Sort|Bitmap|Seq Scan on delivery_jobs/, plan);
    // The settings were the claim's transaction's alone: this connection plans as before afterwards.
    const { rows } = await sql<{ bitmap: string; seq: string }>`select current_setting('enable_bitmapscan') as bitmap, current_setting('enable_seqscan') as seq`.execute(db);
    assert.deepEqual(rows[0], { bitmap: 'on', seq: 'on' });
  });
});
