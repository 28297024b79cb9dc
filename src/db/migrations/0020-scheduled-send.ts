import type { Kysely } from 'kysely';

// Scheduled sends (issue 16, point 8): the time a message was held until, shown by its detail. Holding it is
// the delivery job's `available_at`, which the claim index (state, available_at) already orders by, so the
// worker's claim passes over a scheduled job until it is due at no extra cost.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('scheduled_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('scheduled_at').execute();
}
