import type { Selectable } from 'kysely';
import { storeKindOfDb, type Db } from '../db/database.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from '../db/schema.js';
import { bulkInsert } from './bulk-insert.js';

export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
export type NewWebhookDelivery = Omit<WebhookDeliveriesTable, 'attempts'>;

const insertDeliveries = bulkInsert('webhook_deliveries', [
  'id', 'webhook_id', 'workspace_id', 'event_id', 'event_type', 'payload', 'state', 'available_at', 'lease_owner', 'lease_expires_at',
  'last_status', 'last_error', 'created_at', 'updated_at',
]);

/**
 * The webhook delivery queue: one row per event per subscribed endpoint,
 * claimed with a lease like delivery jobs (FOR UPDATE SKIP LOCKED on
 * PostgreSQL), every later change naming the owner.
 */
export function createWebhookDeliveriesRepository(db: Db) {
  const skipLocked = storeKindOfDb(db) === 'postgres';
  return {
    /** The endpoints of these workspaces, with the event types each receives: what an event fans out to. */
    async subscribedEndpoints(workspaceIds: string[]): Promise<Pick<WebhooksTable, 'id' | 'workspace_id' | 'events'>[]> {
      if (workspaceIds.length === 0) return [];
      return db.selectFrom('webhooks').select(['id', 'workspace_id', 'events']).where('workspace_id', 'in', workspaceIds).execute();
    },

    async insertMany(rows: NewWebhookDelivery[]): Promise<void> {
      await insertDeliveries(db, rows);
    },

    /** Leases up to `limit` due deliveries, oldest first, none of the endpoints in `skipWebhooks` (those already busy). */
    async claim(owner: string, now: string, leaseUntil: string, limit: number, skipWebhooks: string[] = []): Promise<WebhookDelivery[]> {
      const claimed = await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ lease_owner: owner, lease_expires_at: leaseUntil, attempts: eb('attempts', '+', 1), updated_at: now }))
        .where('id', 'in', (eb) => {
          let due = eb
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('state', '=', 'pending')
            .where('available_at', '<=', now)
            .where((w) => w.or([w('lease_expires_at', 'is', null), w('lease_expires_at', '<=', now)]));
          if (skipWebhooks.length > 0) due = due.where('webhook_id', 'not in', skipWebhooks);
          due = due.orderBy('available_at').orderBy('id').limit(limit);
          return skipLocked ? due.forUpdate().skipLocked() : due;
        })
        .returningAll()
        .execute();
      return claimed.sort((a, b) => a.available_at.localeCompare(b.available_at) || a.id.localeCompare(b.id));
    },

    /** The endpoint a delivery goes to (its URL and stored secret), or undefined when it was deleted. */
    async endpointOf(webhookId: string): Promise<Pick<WebhooksTable, 'id' | 'url' | 'secret'> | undefined> {
      return db.selectFrom('webhooks').select(['id', 'url', 'secret']).where('id', '=', webhookId).executeTakeFirst();
    },

    async recordAttempt(row: WebhookAttemptsTable): Promise<void> {
      await db.insertInto('webhook_attempts').values(row).execute();
    },

    /** Settles a delivery (`delivered`, or `failed` for good) or makes it due again at `availableAt` (`pending`). Owner-checked. */
    async settle(
      id: string,
      owner: string,
      change: { state: WebhookDelivery['state']; availableAt?: string; lastStatus: number | null; lastError: string | null },
      now: string,
    ): Promise<boolean> {
      const result = await db
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
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Gives back deliveries the owner claimed but did not post, uncounting the attempt the claim counted. */
    async unclaim(ids: string[], owner: string, now: string): Promise<void> {
      if (ids.length === 0) return;
      await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ lease_owner: null, lease_expires_at: null, attempts: eb('attempts', '-', 1), updated_at: now }))
        .where('id', 'in', ids)
        .where('lease_owner', '=', owner)
        .execute();
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
