import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { EngagementFirstsTable, EngagementHourlyTable, MessagesTable } from '../db/schema.js';

/** What of a message an event about it needs: no bodies. */
export type EngagedMessage = Pick<MessagesTable, 'id' | 'workspace_id' | 'from_address' | 'subject' | 'tags' | 'recipients' | 'cc' | 'bcc' | 'content_expired_at'>;

/** The counters of engagement_hourly, in the order GET /v1/send/stats/engagement lists them, then the rates' denominators. */
const ENGAGEMENT_COUNTS = ['opened', 'unique_opened', 'clicked', 'unique_clicked', 'machine_opened', 'machine_clicked'] as const;
const TRACKED_COUNTS = ['tracked_opens', 'tracked_clicks'] as const;
export const ALL_COUNTS = [...ENGAGEMENT_COUNTS, ...TRACKED_COUNTS] as const;
export type EngagementCount = (typeof ALL_COUNTS)[number];

/** What one transaction adds to one workspace's hour. */
export type EngagementDelta = Pick<EngagementHourlyTable, 'workspace_id' | 'hour'> & Partial<Record<EngagementCount, number>>;

/** The hour (UTC) an instant falls in, as engagement_hourly keys it. */
export const hourOf = (iso: string) => `${iso.slice(0, 13)}:00:00.000Z`;

/** Sums of the counters over hours, by name; PostgreSQL's bigint sums arrive as text. */
export type EngagementSums = Record<EngagementCount, number>;

/** Opens, clicks and tracked hand-overs, counted per workspace and hour, and what made an open or click a first one. */
export function createEngagementRepository(db: Db) {
  return {
    /** Adds the deltas, one upsert per workspace and hour. */
    async add(deltas: EngagementDelta[]): Promise<void> {
      const merged = new Map<string, EngagementDelta>();
      for (const delta of deltas) {
        const key = `${delta.workspace_id}\0${delta.hour}`;
        const into = merged.get(key) ?? { workspace_id: delta.workspace_id, hour: delta.hour };
        for (const column of ALL_COUNTS) if (delta[column]) into[column] = (into[column] ?? 0) + delta[column]!;
        merged.set(key, into);
      }
      for (const row of merged.values()) {
        const values = Object.fromEntries(ALL_COUNTS.map((c) => [c, row[c] ?? 0])) as Record<EngagementCount, number>;
        await db
          .insertInto('engagement_hourly')
          .values({ workspace_id: row.workspace_id, hour: row.hour, ...values })
          .onConflict((oc) =>
            oc.columns(['workspace_id', 'hour']).doUpdateSet((eb) =>
              Object.fromEntries(ALL_COUNTS.map((c) => [c, eb(eb.ref(`engagement_hourly.${c}`), '+', eb.ref(`excluded.${c}`))])),
            ),
          )
          .execute();
      }
    },

    /** Records first opens and clicks; answers those that were not recorded before (each is a unique one). */
    async addFirsts(rows: EngagementFirstsTable[]): Promise<Set<string>> {
      const added = new Set<string>();
      if (rows.length === 0) return added;
      const inserted = await db
        .insertInto('engagement_firsts')
        .values(rows)
        .onConflict((oc) => oc.columns(['message_id', 'recipient_index', 'kind']).doNothing())
        .returning(['message_id', 'recipient_index', 'kind'])
        .execute();
      for (const row of inserted) added.add(firstKey(row.message_id, Number(row.recipient_index), row.kind));
      return added;
    },

    /** What events about these messages need of them (no bodies). */
    async messagesFor(ids: string[]): Promise<EngagedMessage[]> {
      if (ids.length === 0) return [];
      return db
        .selectFrom('messages')
        .select(['id', 'workspace_id', 'from_address', 'subject', 'tags', 'recipients', 'cc', 'bcc', 'content_expired_at'])
        .where('id', 'in', ids)
        .execute();
    },

    /** What a message's tracked links are read from (tracked-links.ts). */
    async linkSource(id: string) {
      return db.selectFrom('messages').select(['id', 'html', 'headers', 'content_expired_at']).where('id', '=', id).executeTakeFirst();
    },

    /** When each recipient was last handed over (accepted or delivered), by `message_id\0recipient`. */
    async handedOverAt(messageIds: string[]): Promise<Map<string, string>> {
      if (messageIds.length === 0) return new Map();
      const rows = await db
        .selectFrom('delivery_attempts')
        .select(['message_id', 'recipient', sql<string>`max(created_at)`.as('at')])
        .where('message_id', 'in', messageIds)
        .where('outcome', 'in', ['accepted', 'delivered'])
        .groupBy(['message_id', 'recipient'])
        .execute();
      return new Map(rows.map((r) => [`${r.message_id}\0${r.recipient}`, r.at]));
    },

    /** The counters summed over [fromHour, toHour). */
    async sums(workspaceId: string, fromHour: string | undefined, toHour: string | undefined): Promise<EngagementSums> {
      let query = db
        .selectFrom('engagement_hourly')
        .select(ALL_COUNTS.map((c) => sql<string>`coalesce(sum(${sql.ref(c)}), 0)`.as(c)))
        .where('workspace_id', '=', workspaceId);
      if (fromHour !== undefined) query = query.where('hour', '>=', fromHour);
      if (toHour !== undefined) query = query.where('hour', '<', toHour);
      const row = (await query.executeTakeFirst()) as Record<string, unknown> | undefined;
      return Object.fromEntries(ALL_COUNTS.map((c) => [c, Number(row?.[c] ?? 0)])) as EngagementSums;
    },

    /** The counters of each hour in [fromHour, toHour) that has any. */
    async hours(workspaceId: string, fromHour: string, toHour: string): Promise<(EngagementSums & { hour: string })[]> {
      const rows = await db
        .selectFrom('engagement_hourly')
        .select(['hour', ...ALL_COUNTS])
        .where('workspace_id', '=', workspaceId)
        .where('hour', '>=', fromHour)
        .where('hour', '<', toHour)
        .orderBy('hour')
        .execute();
      return rows.map((r) => ({ hour: r.hour, ...(Object.fromEntries(ALL_COUNTS.map((c) => [c, Number(r[c])])) as EngagementSums) }));
    },
  };
}

/** How a first open or click is named in addFirsts' answer. */
export const firstKey = (messageId: string, recipient: number, kind: string) => `${messageId}\0${recipient}\0${kind}`;

declare module '../db/store.js' {
  interface Repositories {
    engagement: ReturnType<typeof createEngagementRepository>;
  }
}
