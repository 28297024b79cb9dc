import { sql, type Selectable } from 'kysely';
import { storeKindOfDb, type Db } from '../db/database.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from '../db/schema.js';
import { bulkInsert, powerOfTwoChunks } from '../db/bulk-insert.js';
import { claimInIndexOrder } from '../db/index-plans.js';

export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
export type NewWebhookDelivery = Omit<WebhookDeliveriesTable, 'attempts'>;
/** What an attempt settles: `delivered`, `failed` for good, or `pending` again from `availableAt`. */
export interface WebhookSettlement {
  state: WebhookDelivery['state'];
  availableAt?: string;
  lastStatus: number | null;
  lastError: string | null;
}

const insertDeliveries = bulkInsert('webhook_deliveries', [
  'id', 'webhook_id', 'workspace_id', 'event_id', 'event_type', 'payload', 'state', 'available_at', 'lease_owner', 'lease_expires_at',
  'last_status', 'last_error', 'created_at', 'updated_at',
]);
const insertAttempts = bulkInsert('webhook_attempts', ['id', 'delivery_id', 'attempt', 'status_code', 'response_body', 'error', 'duration_ms', 'created_at']);

/** Most rows recordAndSettle writes in its one statement; more go in a transaction. */
const MAX_ROWS_TOGETHER = 256;

/** The columns a settlement writes: the state, when pending again its new time, the last answer; the lease ends. */
function settledColumns(change: WebhookSettlement, now: string) {
  return {
    state: change.state,
    ...(change.availableAt ? { available_at: change.availableAt } : {}),
    last_status: change.lastStatus,
    last_error: change.lastError,
    lease_owner: null,
    lease_expires_at: null,
    updated_at: now,
  };
}

/** What a dispatcher has room for in one claim (claimDue). */
export interface ClaimRoom {
  /** Deliveries in all. */
  free: number;
  /** Of each endpoint, unless `room` names it. */
  perEndpoint: number;
  /** The endpoints the dispatcher already holds deliveries of, with the room each has left (0 or less: none). */
  room: Map<string, number>;
  /** How many of the oldest due deliveries the room is shared among: some may belong to endpoints with little room. */
  candidates: number;
}

/**
 * The webhook delivery queue: one row per event per subscribed endpoint,
 * claimed with a lease (the oldest due ones, each endpoint's share capped, in
 * one conditional update), every later change naming the owner.
 */
export function createWebhookDeliveriesRepository(db: Db) {
  return {
    /** The endpoints of these workspaces, with the event types each receives: what an event fans out to. */
    async subscribedEndpoints(workspaceIds: string[]): Promise<Pick<WebhooksTable, 'id' | 'workspace_id' | 'events'>[]> {
      if (workspaceIds.length === 0) return [];
      return db.selectFrom('webhooks').select(['id', 'workspace_id', 'events']).where('workspace_id', 'in', workspaceIds).execute();
    },

    /** Endpoints that name the event type, of the given workspaces or (`all`) of every one: few name an opt-in type. */
    async endpointsNaming(type: string, workspaceIds: string[] | 'all'): Promise<Pick<WebhooksTable, 'id' | 'workspace_id'>[]> {
      if (workspaceIds !== 'all' && workspaceIds.length === 0) return [];
      let query = db.selectFrom('webhooks').select(['id', 'workspace_id']).where('events', 'like', `%${JSON.stringify(type)}%`);
      if (workspaceIds !== 'all') query = query.where('workspace_id', 'in', workspaceIds);
      return query.execute();
    },

    async insertMany(rows: NewWebhookDelivery[]): Promise<void> {
      await insertDeliveries(db, rows);
    },

    /**
     * Leases due, unleased deliveries, oldest first, as many as `free` and at most each endpoint's room
     * (ClaimRoom), counting the attempt: picked and leased in one statement, through the due index in its order
     * (claimInIndexOrder: left to statistics of a smaller queue, PostgreSQL read every pending row, dead index
     * entries included where nothing vacuums, 9–11 ms a claim at 10,000, against 1.4 ms). A concurrent
     * dispatcher that picked the same ones gets only those it leased first (the WHERE of the update is
     * judged again on the locked row), so no delivery is held by two. Answers them oldest first.
     */
    async claimDue({ free, perEndpoint, room, candidates }: ClaimRoom, owner: string, now: string, leaseUntil: string): Promise<WebhookDelivery[]> {
      if (free <= 0) return [];
      const full = [...room].filter(([, left]) => left <= 0).map(([id]) => id);
      const partial = [...room].filter(([, left]) => left > 0);
      const rooms =
        partial.length > 0
          ? sql`values ${sql.join(partial.map(([id, left]) => sql`(${id}, cast(${left} as integer))`))}`
          : sql`select '', 0 where 1 = 0`;
      const skipFull = full.length > 0 ? sql`and webhook_id not in (${sql.join(full)})` : sql``;
      const { rows } = await claimInIndexOrder(db, (on) => sql<WebhookDelivery>`
        with endpoint_room (webhook_id, room) as (${rooms}),
        candidates as (
          select id, webhook_id, available_at from webhook_deliveries
          where state = 'pending' and available_at <= ${now} and (lease_expires_at is null or lease_expires_at <= ${now}) ${skipFull}
          order by available_at, id limit ${candidates}
        ),
        ranked as (
          select c.id, c.available_at, coalesce(r.room, cast(${perEndpoint} as integer)) as room,
            row_number() over (partition by c.webhook_id order by c.available_at, c.id) as nth
          from candidates c left join endpoint_room r on r.webhook_id = c.webhook_id
        ),
        picked as (select id from ranked where nth <= room order by available_at, id limit ${free})
        update webhook_deliveries set lease_owner = ${owner}, lease_expires_at = ${leaseUntil}, attempts = attempts + 1, updated_at = ${now}
        where id in (select id from picked) and state = 'pending' and (lease_expires_at is null or lease_expires_at <= ${now})
        returning *`.execute(on));
      return rows.sort((a, b) => a.available_at.localeCompare(b.available_at) || a.id.localeCompare(b.id));
    },

    /** The endpoint a delivery goes to (its URL and stored secret), or undefined when it was deleted. */
    async endpointOf(webhookId: string): Promise<Pick<WebhooksTable, 'id' | 'url' | 'secret'> | undefined> {
      return db.selectFrom('webhooks').select(['id', 'url', 'secret']).where('id', '=', webhookId).executeTakeFirst();
    },

    /** Attempts, as many as there are, in multi-row INSERTs: on PostgreSQL one round trip, not one each. */
    async recordAttempts(rows: WebhookAttemptsTable[]): Promise<void> {
      await insertAttempts(db, rows);
    },

    /**
     * Settles deliveries alike (`delivered`, or `failed` for good) or makes them due again at `availableAt`
     * (`pending`), in one statement per chunk of ids. Owner-checked: answers the ids it settled, leaving out
     * those whose lease this owner no longer held.
     */
    async settleMany(ids: string[], owner: string, change: WebhookSettlement, now: string): Promise<string[]> {
      const settled: string[] = [];
      for (const chunk of powerOfTwoChunks(ids)) {
        const rows = await db.updateTable('webhook_deliveries').set(settledColumns(change, now)).where('id', 'in', chunk).where('lease_owner', '=', owner).returning('id').execute();
        settled.push(...rows.map((row) => row.id));
      }
      return settled;
    },

    /**
     * Records attempts and settles their deliveries (as settleMany, each group alike), all or nothing; answers the ids
     * settled. On PostgreSQL, when the deliveries settle alike (most often: delivered, 200), in one statement, the
     * attempts inserted in a CTE of the UPDATE: one round trip rather than a transaction's four, each of which costs
     * the dispatcher's thread a socket write and a wait.
     */
    async recordAndSettle(attempts: WebhookAttemptsTable[], groups: { ids: string[]; change: WebhookSettlement }[], owner: string, now: string): Promise<string[]> {
      const [only] = groups;
      if (storeKindOfDb(db) === 'postgres' && groups.length === 1 && attempts.length <= MAX_ROWS_TOGETHER && only!.ids.length <= MAX_ROWS_TOGETHER) {
        const rows = await db
          .with('recorded', (qb) => qb.insertInto('webhook_attempts').values(attempts))
          .updateTable('webhook_deliveries')
          .set(settledColumns(only!.change, now))
          .where('id', 'in', only!.ids)
          .where('lease_owner', '=', owner)
          .returning('id')
          .execute();
        return rows.map((row) => row.id);
      }
      const write = async (repos: ReturnType<typeof createWebhookDeliveriesRepository>) => {
        await repos.recordAttempts(attempts);
        const settled: string[] = [];
        for (const { ids, change } of groups) settled.push(...(await repos.settleMany(ids, owner, change, now)));
        return settled;
      };
      return db.isTransaction ? write(createWebhookDeliveriesRepository(db)) : db.transaction().execute((trx) => write(createWebhookDeliveriesRepository(trx)));
    },

    /** Gives back deliveries the owner claimed and never posted, due at once, taking back the attempt their claim counted. */
    async releaseUnattempted(ids: string[], owner: string, now: string): Promise<void> {
      for (const chunk of powerOfTwoChunks(ids)) {
        await db
          .updateTable('webhook_deliveries')
          .set((eb) => ({ lease_owner: null, lease_expires_at: null, attempts: eb('attempts', '-', 1), updated_at: now }))
          .where('id', 'in', chunk)
          .where('lease_owner', '=', owner)
          .where('state', '=', 'pending')
          .execute();
      }
    },

    /** Gives back every pending delivery the owner holds, due at once. */
    async releaseAll(owner: string, now: string): Promise<number> {
      const result = await db
        .updateTable('webhook_deliveries')
        .set({ lease_owner: null, lease_expires_at: null, updated_at: now })
        .where('lease_owner', '=', owner)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Whether attempt number `attempt` of the delivery is on record. */
    async hasAttempt(deliveryId: string, attempt: number): Promise<boolean> {
      const row = await db.selectFrom('webhook_attempts').select('id').where('delivery_id', '=', deliveryId).where('attempt', '=', attempt).limit(1).executeTakeFirst();
      return row !== undefined;
    },

    async listAttempts(deliveryId: string): Promise<WebhookAttemptsTable[]> {
      return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('id').execute();
    },

    async listForEvent(eventId: string): Promise<WebhookDelivery[]> {
      return db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).orderBy('id').execute();
    },

    async countByState(): Promise<Record<string, number>> {
      const rows = await db.selectFrom('webhook_deliveries').select((eb) => ['state', eb.fn.countAll().as('n')]).groupBy('state').execute();
      return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    webhookDeliveries: ReturnType<typeof createWebhookDeliveriesRepository>;
  }
}
