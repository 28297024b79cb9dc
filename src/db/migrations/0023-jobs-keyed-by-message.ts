import { sql, type Kysely } from 'kysely';
import { storeKindOfDb } from '../database.js';

// The outbox keyed by its message (issue 19). A message has at most one job, and every look-up but
// the claim already named it by its message, so the job's own id only cost B-trees on the accepting
// path: its primary key's and the message's unique index, two on SQLite, one on PostgreSQL, each
// written at every commit of sends (docs/architecture.md). `message_id` becomes the primary key and
// `id` goes; the claim index ends in `message_id`.
// - SQLite: a table's key cannot change in place, so the table is rebuilt, WITHOUT ROWID (its rows
//   are small and found by their key, so the rows live in the key's B-tree: one B-tree fewer again).
// - PostgreSQL: the constraints change in place.
// Processes of an earlier version name `delivery_jobs.id`: stop them all before this runs (docs/operations.md, Upgrades).
const COLUMNS = ['message_id', 'workspace_id', 'state', 'attempts', 'available_at', 'lease_owner', 'lease_expires_at', 'last_error', 'created_at', 'updated_at', 'pending_recipients'];

async function rebuildOnSqlite(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('delivery_jobs_keyed')
    .addColumn('message_id', 'text', (c) => c.primaryKey().notNull().references('messages.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('available_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('pending_recipients', 'text')
    .modifyEnd(sql`without rowid`)
    .execute();
  const columns = sql.join(COLUMNS.map((c) => sql.ref(c)));
  await sql`insert into delivery_jobs_keyed (${columns}) select ${columns} from delivery_jobs`.execute(db);
  await db.schema.dropTable('delivery_jobs').execute();
  await sql`alter table delivery_jobs_keyed rename to delivery_jobs`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (storeKindOfDb(db) === 'sqlite') {
    // SQLite's migrations run outside a transaction (no transactional DDL in Kysely's adapter): the
    // copy and the swap are one, so a failure leaves the old table as it was.
    await db.transaction().execute(rebuildOnSqlite);
  } else {
    await sql`alter table delivery_jobs drop constraint delivery_jobs_pkey`.execute(db);
    await sql`alter table delivery_jobs drop constraint delivery_jobs_message_id_key`.execute(db);
    // Drops delivery_jobs_due_idx with it.
    await db.schema.alterTable('delivery_jobs').dropColumn('id').execute();
    await sql`alter table delivery_jobs add constraint delivery_jobs_pkey primary key (message_id)`.execute(db);
  }
  await db.schema.createIndex('delivery_jobs_due_idx').on('delivery_jobs').columns(['state', 'available_at', 'message_id']).execute();
}

/** Back to a job id of its own: each job takes its message's id, which is as unique. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('delivery_jobs_due_idx').execute();
  if (storeKindOfDb(db) === 'sqlite') {
    await db.transaction().execute(async (trx) => {
      await sql`create table delivery_jobs_ided (id text not null primary key, message_id text not null unique references messages (id) on delete cascade, workspace_id text not null, state text not null, attempts integer default 0 not null, available_at text not null, lease_owner text, lease_expires_at text, last_error text, created_at text not null, updated_at text not null, pending_recipients text)`.execute(trx);
      const columns = sql.join(COLUMNS.map((c) => sql.ref(c)));
      await sql`insert into delivery_jobs_ided (id, ${columns}) select message_id, ${columns} from delivery_jobs`.execute(trx);
      await trx.schema.dropTable('delivery_jobs').execute();
      await sql`alter table delivery_jobs_ided rename to delivery_jobs`.execute(trx);
    });
  } else {
    await sql`alter table delivery_jobs drop constraint delivery_jobs_pkey`.execute(db);
    await sql`alter table delivery_jobs add column id text`.execute(db);
    await sql`update delivery_jobs set id = message_id`.execute(db);
    await sql`alter table delivery_jobs alter column id set not null, add constraint delivery_jobs_pkey primary key (id), add constraint delivery_jobs_message_id_key unique (message_id)`.execute(db);
  }
  await db.schema.createIndex('delivery_jobs_due_idx').on('delivery_jobs').columns(['state', 'available_at', 'id']).execute();
}
