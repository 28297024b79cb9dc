import type { Kysely } from 'kysely';

// What the delivery workers share about their upstream, whichever process they run in:
// - provider_refusals: the upstream refused Mailroom's credentials (written by the worker that heard it,
//   cleared by the next accepted hand-over), so the API's /readyz, in another process, can say why;
// - send_slots: the next free hand-over time (ms since the epoch) of a rate shared by every worker on
//   the store (SES's MaxSendRate), claimed one slot per send with one atomic upsert.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('provider_refusals')
    .addColumn('provider', 'text', (c) => c.primaryKey().notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('since', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('send_slots')
    .addColumn('name', 'text', (c) => c.primaryKey().notNull())
    .addColumn('next_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('send_slots').execute();
  await db.schema.dropTable('provider_refusals').execute();
}
