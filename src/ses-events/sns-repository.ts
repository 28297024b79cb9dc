import type { Db } from '../db/database.js';
import type { SnsNotificationsTable, SnsSubscriptionsTable } from '../db/schema.js';

/** Applying a notification that failed this often is given up (state `failed`, its error in `outcome`). */
export const MAX_APPLY_TRIES = 5;

/** The SNS notifications heard and the subscriptions confirmed (migration 0027). */
export function createSnsRepository(db: Db) {
  return {
    /** Records a notification; false when its MessageId was recorded before (a replay). */
    async claim(row: Omit<SnsNotificationsTable, 'tries' | 'outcome' | 'applied_at'> & Partial<Pick<SnsNotificationsTable, 'outcome' | 'applied_at'>>): Promise<boolean> {
      const result = await db
        .insertInto('sns_notifications')
        .values({ outcome: null, applied_at: null, ...row, tries: 0 })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },
    /**
     * Takes a received notification for applying, in the caller's transaction: false when it is not
     * `received` any more (another process applied it). A concurrent taker waits for this one's commit.
     */
    async take(id: string, now: string): Promise<SnsNotificationsTable | undefined> {
      const result = await db.updateTable('sns_notifications').set({ state: 'applied', applied_at: now }).where('id', '=', id).where('state', '=', 'received').executeTakeFirst();
      if (Number(result.numUpdatedRows ?? 0n) === 0) return undefined;
      return db.selectFrom('sns_notifications').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async recordOutcome(id: string, outcome: string): Promise<void> {
      await db.updateTable('sns_notifications').set({ outcome }).where('id', '=', id).execute();
    },
    /** Counts a failed try; the notification is given up after MAX_APPLY_TRIES. */
    async recordFailure(id: string, error: string): Promise<void> {
      await db
        .updateTable('sns_notifications')
        .set((eb) => ({ tries: eb('tries', '+', 1), outcome: JSON.stringify({ error }) }))
        .where('id', '=', id)
        .where('state', '=', 'received')
        .execute();
      await db.updateTable('sns_notifications').set({ state: 'failed' }).where('id', '=', id).where('state', '=', 'received').where('tries', '>=', MAX_APPLY_TRIES).execute();
    },
    /** Notifications still to apply that were received before `before`, oldest first (off the pending index). */
    async listReceived(before: string, limit: number): Promise<string[]> {
      const rows = await db.selectFrom('sns_notifications').select('id').where('state', '=', 'received').where('received_at', '<', before).orderBy('received_at').orderBy('id').limit(limit).execute();
      return rows.map((r) => r.id);
    },
    async find(id: string): Promise<SnsNotificationsTable | undefined> {
      return db.selectFrom('sns_notifications').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** Drops notifications done with before `before`: a replay that old is refused by its Timestamp anyway. */
    async pruneBefore(before: string): Promise<number> {
      const result = await db.deleteFrom('sns_notifications').where('received_at', '<', before).where('state', '<>', 'received').executeTakeFirst();
      return Number(result.numDeletedRows ?? 0n);
    },

    /** A topic's subscription asks for confirmation: pending (again) with this SubscribeURL. */
    async requestConfirmation(topicArn: string, subscribeUrl: string, now: string): Promise<void> {
      await db
        .insertInto('sns_subscriptions')
        .values({ topic_arn: topicArn, subscribe_url: subscribeUrl, state: 'pending', last_error: null, requested_at: now, confirmed_at: null })
        .onConflict((oc) => oc.column('topic_arn').doUpdateSet({ subscribe_url: subscribeUrl, state: 'pending', last_error: null, requested_at: now, confirmed_at: null }))
        .execute();
    },
    async findSubscription(topicArn: string): Promise<SnsSubscriptionsTable | undefined> {
      return db.selectFrom('sns_subscriptions').selectAll().where('topic_arn', '=', topicArn).executeTakeFirst();
    },
    /** Confirmed, unless a newer confirmation request (another SubscribeURL) came meanwhile. */
    async markConfirmed(topicArn: string, subscribeUrl: string, now: string): Promise<void> {
      await db.updateTable('sns_subscriptions').set({ state: 'confirmed', confirmed_at: now, last_error: null }).where('topic_arn', '=', topicArn).where('subscribe_url', '=', subscribeUrl).execute();
    },
    async recordConfirmFailure(topicArn: string, subscribeUrl: string, error: string): Promise<void> {
      await db.updateTable('sns_subscriptions').set({ last_error: error }).where('topic_arn', '=', topicArn).where('subscribe_url', '=', subscribeUrl).where('state', '=', 'pending').execute();
    },
    async listPending(): Promise<SnsSubscriptionsTable[]> {
      return db.selectFrom('sns_subscriptions').selectAll().where('state', '=', 'pending').orderBy('topic_arn').execute();
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    sns: ReturnType<typeof createSnsRepository>;
  }
}
