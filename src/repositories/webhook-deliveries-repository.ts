import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from '../db/schema.js';
import { bulkInsert, powerOfTwoChunks } from './bulk-insert.js';

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

/**
 * The webhook delivery queue: one row per event per subscribed endpoint,
 * claimed with a lease (picked from the due ones, then leased by a
 * conditional update, so each endpoint's share can be chosen), every later
 * change naming the owner.
 */
export function createWebhookDeliveriesRepository(db: Db) {
  return {
    /** The endpoints of these workspaces, with the event types each receives: what an event fans out to. */
    async subscribedEndpoints(workspaceIds: string[]): Promise<Pick<WebhooksTable, 'id' | 'workspace_id' | 'events'>[]> {
      if (workspaceIds.length === 0) return [];
      return db.selectFrom('webhooks').select(['id', 'workspace_id', 'events']).where('workspace_id', 'in', workspaceIds).execute();
    },

    async insertMany(rows: NewWebhookDelivery[]): Promise<void> {
      await insertDeliveries(db, rows);
    },

    /** Due, unleased deliveries, oldest first (id and endpoint only): what a dispatcher may claim, before it picks. */
    async due(now: string, limit: number, skipWebhooks: string[] = []): Promise<Pick<WebhookDelivery, 'id' | 'webhook_id'>[]> {
      let query = db
        .selectFrom('webhook_deliveries')
        .select(['id', 'webhook_id'])
        .where('state', '=', 'pending')
        .where('available_at', '<=', now)
        .where((w) => w.or([w('lease_expires_at', 'is', null), w('lease_expires_at', '<=', now)]));
      if (skipWebhooks.length > 0) query = query.where('webhook_id', 'not in', skipWebhooks);
      return query.orderBy('available_at').orderBy('id').limit(limit).execute();
    },

    /**
     * Leases the given deliveries that are still due and unleased, counting the
     * attempt, in one statement: a concurrent dispatcher that picked the same
     * ones gets only those it leased first (the WHERE is judged again on the
     * locked row), so no delivery is held by two.
     */
    async claim(ids: string[], owner: string, now: string, leaseUntil: string): Promise<WebhookDelivery[]> {
      if (ids.length === 0) return [];
      const claimed = await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ lease_owner: owner, lease_expires_at: leaseUntil, attempts: eb('attempts', '+', 1), updated_at: now }))
        .where('id', 'in', ids)
        .where('state', '=', 'pending')
        .where((w) => w.or([w('lease_expires_at', 'is', null), w('lease_expires_at', '<=', now)]))
        .returningAll()
        .execute();
      return claimed.sort((a, b) => a.available_at.localeCompare(b.available_at) || a.id.localeCompare(b.id));
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
        const rows = await db
          .updateTable('webhook_deliveries')
          .set({
            state: change.state,
            ...(change.availableAt ? { available_at: change.availableAt } : {}),
            last_status: change.lastStatus,
            last_error: change.lastError,
            lease_owner: null,
            lease_expires_at: null,
            updated_at: now,
          })
          .where('id', 'in', chunk)
          .where('lease_owner', '=', owner)
          .returning('id')
          .execute();
        settled.push(...rows.map((row) => row.id));
      }
      return settled;
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
