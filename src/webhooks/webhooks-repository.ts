import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database, WebhookDeliveriesTable, WebhooksTable } from '../db/schema.js';

export type WebhookRow = WebhooksTable;
export type WebhookDeliveryRow = Omit<WebhookDeliveriesTable, 'attempts'> & { attempts: number };
/** What the API shows of a delivery: no payload, no lease. */
export type WebhookDeliverySummaryRow = Pick<
  WebhookDeliveryRow,
  'id' | 'event_id' | 'event_type' | 'state' | 'attempts' | 'available_at' | 'last_status' | 'last_error' | 'created_at' | 'updated_at'
>;
/** An endpoint with how its latest finished deliveries went (counts as the driver returns them: bigint strings on PostgreSQL). */
export type WebhookWithOutcomesRow = WebhookRow & { finished: number | string; delivered: number | string };

const DELIVERY_SUMMARY_COLUMNS = [
  'id', 'event_id', 'event_type', 'state', 'attempts', 'available_at', 'last_status', 'last_error', 'created_at', 'updated_at',
] as const;

/**
 * The webhook endpoints (`webhooks`), and the API's reads and one update of
 * their deliveries. Writing deliveries (fan-out) and claiming them (the
 * dispatcher) belong to webhook-deliveries-repository.ts.
 */
export function createWebhooksRepository(db: Db) {
  return {
    async insert(row: WebhookRow): Promise<void> {
      await db.insertInto('webhooks').values(row).execute();
    },

    /** The workspace's endpoints, newest first (ids sort by creation time). */
    async listByWorkspace(workspaceId: string): Promise<WebhookRow[]> {
      return db.selectFrom('webhooks').selectAll().where('workspace_id', '=', workspaceId).orderBy('id', 'desc').execute();
    },

    /**
     * The workspace's endpoints, newest first, each with how many of its latest
     * `window` finished (delivered or failed) deliveries there are and how many
     * were delivered. One statement: per endpoint, a correlated subquery walks
     * webhook_deliveries_webhook_idx backwards and stops after `window`, so the
     * cost does not grow with an endpoint's history.
     */
    async listByWorkspaceWithOutcomes(workspaceId: string, window: number): Promise<WebhookWithOutcomesRow[]> {
      const latestFinished = (eb: ExpressionBuilder<Database & { w: WebhooksTable }, 'w'>) =>
        eb
          .selectFrom('webhook_deliveries as d')
          .select('d.state')
          .whereRef('d.webhook_id', '=', 'w.id')
          .where('d.state', 'in', ['delivered', 'failed'])
          .orderBy('d.id', 'desc')
          .limit(window)
          .as('latest');
      return db
        .selectFrom('webhooks as w')
        .selectAll('w')
        .select((eb) => [
          eb.selectFrom(latestFinished(eb)).select((inner) => inner.fn.countAll().as('n')).as('finished'),
          eb.selectFrom(latestFinished(eb)).select((inner) => inner.fn.countAll().as('n')).where('latest.state', '=', 'delivered').as('delivered'),
        ])
        .where('w.workspace_id', '=', workspaceId)
        .orderBy('w.id', 'desc')
        .$castTo<WebhookWithOutcomesRow>()
        .execute();
    },

    async findById(workspaceId: string, id: string): Promise<WebhookRow | undefined> {
      return db.selectFrom('webhooks').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },

    /** Deletes the endpoint and, by cascade, its deliveries and their attempts; true when one of that workspace was deleted. */
    async delete(workspaceId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('webhooks').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /** Replaces the stored (sealed) secret; true when the endpoint exists in that workspace. */
    async replaceSecret(workspaceId: string, id: string, secret: string, updatedAt: string): Promise<boolean> {
      const result = await db
        .updateTable('webhooks')
        .set({ secret, updated_at: updatedAt })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** The endpoint's latest deliveries, newest first (webhook_deliveries_webhook_idx: ids sort by creation time). */
    async listRecentDeliveries(webhookId: string, limit: number): Promise<WebhookDeliverySummaryRow[]> {
      return db
        .selectFrom('webhook_deliveries')
        .select(DELIVERY_SUMMARY_COLUMNS)
        .where('webhook_id', '=', webhookId)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },

    async findDelivery(webhookId: string, deliveryId: string): Promise<WebhookDeliverySummaryRow | undefined> {
      return db
        .selectFrom('webhook_deliveries')
        .select(DELIVERY_SUMMARY_COLUMNS)
        .where('webhook_id', '=', webhookId)
        .where('id', '=', deliveryId)
        .executeTakeFirst();
    },

    /**
     * Makes one delivery of the endpoint due now, whatever its state: pending,
     * available at `now`, no lease (the dispatcher claims it next); `attempts`
     * and the last status and error are kept. Answers the delivery as it now
     * is, or undefined when the endpoint has no such delivery.
     */
    async makeDeliveryDueNow(webhookId: string, deliveryId: string, now: string): Promise<WebhookDeliverySummaryRow | undefined> {
      return db
        .updateTable('webhook_deliveries')
        .set({ state: 'pending', available_at: now, lease_owner: null, lease_expires_at: null, updated_at: now })
        .where('webhook_id', '=', webhookId)
        .where('id', '=', deliveryId)
        .returning(DELIVERY_SUMMARY_COLUMNS)
        .executeTakeFirst();
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    webhooks: ReturnType<typeof createWebhooksRepository>;
  }
}
