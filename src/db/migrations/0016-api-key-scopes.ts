import type { Kysely } from 'kysely';

// Scoped API keys (issue 15, point 9):
// - permission: 'full_access' (every /v1 route, what every key could do before) or 'sending_access'
//   (only the send routes). The default makes every key made before this migration full_access.
// - domain_id: for a sending key, the one domain it may send from; null for no restriction.
//   Deliberately no foreign key: deleting the domain must not widen the key (SET NULL would)
//   nor silently delete it (CASCADE); the key keeps pointing at nothing and sends from nowhere.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('permission', 'text', (c) => c.notNull().defaultTo('full_access')).execute();
  await db.schema.alterTable('api_keys').addColumn('domain_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('domain_id').execute();
  await db.schema.alterTable('api_keys').dropColumn('permission').execute();
}
