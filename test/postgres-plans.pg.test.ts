import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../src/db/schema.js';
import { createDeliveryJobsRepository } from '../src/delivery/delivery-jobs-repository.js';
import { createLogsRepository } from '../src/logs/logs-repository.js';
import { createWebhookDeliveriesRepository } from '../src/webhooks/webhook-deliveries-repository.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const ROWS = 20_000;
const NOW = '2030-01-01T01:00:00.000Z';

/**
 * PostgreSQL plans a statement from statistics taken earlier, and Mailroom's tables grow faster than
 * they are taken (or never are, where autovacuum is off, as on this machine's server). This runs on
 * PostgreSQL: it is that planner’s behaviour under test (db/index-plans.ts).
 */
describe('PostgreSQL: the worker’s statements keep to their indexes, whatever the statistics say', () => {
  let t: TestApp;
  let pool: pg.Pool;
  let db: Kysely<Database>;
  const notices: string[] = [];

  /** The plan auto_explain told for the statement that holds `text`. */
  const planOf = (text: string) => notices.find((notice) => notice.includes(text)) ?? notices.join('\n');

  before(async () => {
    t = await createTestApp({}, { store: 'postgres' });
    // No autovacuum run may change the statistics while the test reads plans.
    for (const table of ['delivery_jobs', 'log_entries', 'webhook_deliveries']) await sql`alter table ${sql.table(table)} set (autovacuum_enabled = false)`.execute(t.db);
    // Statistics of an empty queue, then a burst: as a new installation, or a year of `done` jobs before one.
    await sql`analyze delivery_jobs`.execute(t.db);
    await sql`analyze webhook_deliveries`.execute(t.db);
    await sql`
      insert into messages (id, workspace_id, from_name, from_address, subject, text, recipients, created_at)
      select 'msg_plan_' || lpad(n::text, 6, '0'), ${t.workspaceId}, '', 'a@example.com', 's', 't', '[]', ${NOW}
      from generate_series(1, ${ROWS}) n`.execute(t.db);
    await sql`
      insert into delivery_jobs (message_id, workspace_id, state, attempts, available_at, created_at, updated_at)
      select 'msg_plan_' || lpad(n::text, 6, '0'), ${t.workspaceId}, 'pending', 0,
        '2030-01-01T00:00:00.000Z', ${NOW}, ${NOW}
      from generate_series(1, ${ROWS}) n`.execute(t.db);
    // Log entries never analysed: a server whose autovacuum is off, or one that has not come round yet.
    await sql`
      insert into log_entries (id, workspace_id, message_id, type, status, recipient, from_email, subject, created_at, updated_at)
      select 'log_plan_' || lpad(n::text, 6, '0'), ${t.workspaceId}, 'msg_plan_' || lpad(n::text, 6, '0'), 'send', 'sent',
        'to@example.com', 'a@example.com', 's', ${NOW}, ${NOW}
      from generate_series(1, ${ROWS}) n`.execute(t.db);
    // The webhook queue likewise: statistics of an empty one, then a burst of events for one endpoint.
    await sql`insert into webhooks (id, workspace_id, url, events, secret, created_at, updated_at) values ('wh_plan', ${t.workspaceId}, 'https://example.com/hooks', '[]', 's', ${NOW}, ${NOW})`.execute(t.db);
    await sql`
      insert into webhook_deliveries (id, webhook_id, workspace_id, event_id, event_type, payload, state, attempts, available_at, created_at, updated_at)
      select 'whd_plan_' || lpad(n::text, 6, '0'), 'wh_plan', ${t.workspaceId}, 'evt_plan_' || lpad(n::text, 6, '0'), 'delivered', '{}', 'pending', 0,
        '2030-01-01T00:00:00.000Z', ${NOW}, ${NOW}
      from generate_series(1, ${ROWS}) n`.execute(t.db);
    // One connection, so that auto_explain, loaded on it, sees each statement and tells its plan as a notice.
    pool = new pg.Pool({ connectionString: t.storeEnv.DATABASE_URL, max: 1 });
    // pool.end() resolves before its connection's socket has closed, so the store's drop (WITH FORCE) may
    // still terminate it at teardown; an error before then is the test's own and ends it as before.
    pool.on('error', (error) => {
      if (!pool.ending) throw error;
    });
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

  /** The settings are each statement's transaction's alone: this connection plans as before afterwards. */
  async function assertSettingsReset(): Promise<void> {
    const { rows } = await sql<{ bitmap: string; seq: string }>`select current_setting('enable_bitmapscan') as bitmap, current_setting('enable_seqscan') as seq`.execute(db);
    assert.deepEqual(rows[0], { bitmap: 'on', seq: 'on' });
  }

  it('plans the claim as a bitmap scan of every pending job, sorted, when left to those statistics', async () => {
    // The premise: without the repository's settings this server sorts the whole backlog for 8 jobs.
    notices.length = 0;
    await sql`
      select message_id from delivery_jobs
      where state = 'pending' and available_at <= ${NOW} and (lease_expires_at is null or lease_expires_at <= ${NOW})
      order by available_at, message_id limit 8 for update skip locked`.execute(db);
    const plan = notices.join('\n');
    assert.match(plan, /Sort/, plan);
    assert.match(plan, /Bitmap Heap Scan on delivery_jobs/, plan);
  });

  it('claims the oldest due jobs through the index, stopping at the limit', async () => {
    notices.length = 0;
    const claimed = await createDeliveryJobsRepository(db).claim({ owner: 'worker-a', now: NOW, leaseUntil: '2030-01-01T01:01:00.000Z', limit: 8 });
    assert.deepEqual(
      claimed.map((job) => job.message_id),
      Array.from({ length: 8 }, (_, i) => `msg_plan_${String(i + 1).padStart(6, '0')}`),
    );
    const plan = planOf('update "delivery_jobs"');
    assert.match(plan, /Index Scan using delivery_jobs_due_idx/, plan);
    assert.doesNotMatch(plan, /Sort|Bitmap|Seq Scan on delivery_jobs/, plan);
    await assertSettingsReset();
  });

  const someMessages = Array.from({ length: 64 }, (_, i) => `msg_plan_${String(i * 300 + 1).padStart(6, '0')}`);

  it('plans the send entries of 64 messages as a scan of every log entry when left to no statistics', async () => {
    // The premise: 64 keys of a non-unique column are taken to match a third of the table.
    notices.length = 0;
    await sql`select * from log_entries where message_id in (${sql.join(someMessages)}) and type = 'send' order by id`.execute(db);
    const plan = notices.join('\n');
    assert.match(plan, /Seq Scan on log_entries/, plan);
  });

  it('reads the send entries of the messages the worker claimed through the message index', async () => {
    notices.length = 0;
    const entries = await createLogsRepository(db).listSendEntries(someMessages);
    assert.deepEqual(
      entries.map((entry) => entry.message_id),
      someMessages,
    );
    const plan = planOf('from "log_entries"');
    assert.match(plan, /Index Scan using log_entries_message_idx|Bitmap Index Scan on log_entries_message_idx/, plan);
    assert.doesNotMatch(plan, /Seq Scan on log_entries/, plan);
    await assertSettingsReset();
  });

  it('plans the webhook claim as a bitmap scan of every pending delivery, sorted, when left to those statistics', async () => {
    notices.length = 0;
    await sql`
      select id from webhook_deliveries
      where state = 'pending' and available_at <= ${NOW} and (lease_expires_at is null or lease_expires_at <= ${NOW})
      order by available_at, id limit 16`.execute(db);
    const plan = notices.join('\n');
    assert.match(plan, /Sort/, plan);
    assert.match(plan, /Bitmap Heap Scan on webhook_deliveries/, plan);
  });

  it('claims the oldest due webhook deliveries through the index, stopping at the limit', async () => {
    notices.length = 0;
    const room = { free: 8, perEndpoint: 64, room: new Map<string, number>(), candidates: 16 };
    const claimed = await createWebhookDeliveriesRepository(db).claimDue(room, 'dispatcher-a', NOW, '2030-01-01T01:01:00.000Z');
    assert.deepEqual(
      claimed.map((delivery) => delivery.id),
      Array.from({ length: 8 }, (_, i) => `whd_plan_${String(i + 1).padStart(6, '0')}`),
    );
    const plan = planOf('update webhook_deliveries');
    assert.match(plan, /Index Scan using webhook_deliveries_due_idx/, plan);
    assert.doesNotMatch(plan, /Bitmap Heap Scan on webhook_deliveries|Seq Scan on webhook_deliveries/, plan);
    await assertSettingsReset();
  });
});
