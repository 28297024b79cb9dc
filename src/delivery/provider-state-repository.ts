import { sql } from 'kysely';
import { storeKindOfDb, type Db } from '../db/database.js';
import type { ProviderRefusalsTable } from '../db/schema.js';

export function createProviderStateRepository(db: Db) {
  const postgres = storeKindOfDb(db) === 'postgres';
  return {
    /** The upstream refused Mailroom's credentials: kept until an accepted hand-over clears it (the first reason stays). */
    async markRefused(provider: string, reason: string, since: string): Promise<void> {
      await db
        .insertInto('provider_refusals')
        .values({ provider, reason, since })
        .onConflict((oc) => oc.column('provider').doUpdateSet({ reason }))
        .execute();
    },
    async clearRefused(provider: string): Promise<void> {
      await db.deleteFrom('provider_refusals').where('provider', '=', provider).execute();
    },
    async refusalOf(provider: string): Promise<ProviderRefusalsTable | undefined> {
      return db.selectFrom('provider_refusals').selectAll().where('provider', '=', provider).executeTakeFirst();
    },
    /**
     * Claims the next slot of the rate `name`, slots `intervalMs` apart, in one atomic upsert: the
     * slot is the later of the next free one and now, and the next free one moves on by one interval.
     * Answers how long to wait for the claimed slot (0: now). PostgreSQL reads its own clock, so
     * workers on other hosts agree on it; a SQLite file is shared by processes of one host only.
     */
    async claimSlot(name: string, intervalMs: number, nowMs: number = Date.now()): Promise<number> {
      const now = postgres ? sql<number>`(extract(epoch from now()) * 1000)::bigint` : sql<number>`${nowMs}`;
      const row = await sql<{ wait_ms: number | string }>`
        insert into send_slots (name, next_at) values (${name}, ${now} + ${intervalMs})
        on conflict (name) do update set next_at = ${postgres ? sql`greatest` : sql`max`}(send_slots.next_at + ${intervalMs}, excluded.next_at)
        returning next_at - ${intervalMs} - ${now} as wait_ms`.execute(db);
      return Math.max(0, Number(row.rows[0]!.wait_ms));
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    providerState: ReturnType<typeof createProviderStateRepository>;
  }
}
