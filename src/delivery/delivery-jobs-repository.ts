import type { Selectable } from 'kysely';
import { storeKindOfDb, type Db } from '../db/database.js';
import type { DeliveryJobsTable } from '../db/schema.js';
import { claimInIndexOrder } from '../db/index-plans.js';

export type DeliveryJob = Selectable<DeliveryJobsTable>;

export interface ClaimRequest {
  /** Who claims: a worker's id, unique per process. */
  owner: string;
  /** ISO time now; jobs due by then, and leases expired by then, are claimable. */
  now: string;
  /** ISO time the lease ends: after it, another worker may take the job over. */
  leaseUntil: string;
  limit: number;
}

/**
 * The outbox as a queue. A job is claimable when it is pending, due, and not
 * leased (or its lease has expired: the worker holding it died). Claiming sets
 * the lease and counts the attempt in one statement, so two workers never hold
 * the same job at once. Every later change names the owner, so a worker whose
 * lease was taken over cannot complete or reschedule the job behind the new
 * owner's back.
 */
export function createDeliveryJobsRepository(db: Db) {
  // The one place the stores' SQL differs for claiming: PostgreSQL lets
  // concurrent claimers skip each other's locked rows; SQLite has one writer
  // at a time, so its UPDATE is atomic as it stands (and has no FOR UPDATE).
  const skipLocked = storeKindOfDb(db) === 'postgres';

  async function claimOn(on: Db, { owner, now, leaseUntil, limit }: ClaimRequest): Promise<DeliveryJob[]> {
    const claimed = await on
      .updateTable('delivery_jobs')
      .set((eb) => ({ lease_owner: owner, lease_expires_at: leaseUntil, attempts: eb('attempts', '+', 1), updated_at: now }))
      .where('message_id', 'in', (eb) => {
        let due = eb
          .selectFrom('delivery_jobs')
          .select('message_id')
          .where('state', '=', 'pending')
          .where('available_at', '<=', now)
          .where((w) => w.or([w('lease_expires_at', 'is', null), w('lease_expires_at', '<=', now)]))
          .orderBy('available_at')
          .orderBy('message_id')
          .limit(limit);
        if (skipLocked) due = due.forUpdate().skipLocked();
        return due;
      })
      .returningAll()
      .execute();
    // RETURNING follows no ORDER BY on either store.
    return claimed.sort((a, b) => a.available_at.localeCompare(b.available_at) || a.message_id.localeCompare(b.message_id));
  }

  return {
    /** Leases up to `limit` claimable jobs, the longest due first; returned in that order. */
    async claim(request: ClaimRequest): Promise<DeliveryJob[]> {
      return claimInIndexOrder(db, (on) => claimOn(on, request));
    },

    /** The job is finished (every recipient has an outcome). False when the lease is no longer the caller's. */
    async complete(messageId: string, owner: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('delivery_jobs')
        .set({ state: 'done', lease_owner: null, lease_expires_at: null, updated_at: now })
        .where('message_id', '=', messageId)
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /**
     * Tries again at `availableAt` (a temporary failure), then only for
     * `pendingRecipients` when given (the others are done). False when the
     * lease is no longer the caller's.
     */
    async reschedule(messageId: string, owner: string, availableAt: string, error: string, now: string, pendingRecipients?: string[]): Promise<boolean> {
      const pending = pendingRecipients ? { pending_recipients: JSON.stringify(pendingRecipients) } : {};
      const result = await db
        .updateTable('delivery_jobs')
        .set({ available_at: availableAt, last_error: error, lease_owner: null, lease_expires_at: null, updated_at: now, ...pending })
        .where('message_id', '=', messageId)
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /**
     * Extends the lease of the owner's jobs (named by their messages' ids) that are still pending:
     * a long hand-over must not be taken over. On PostgreSQL, rows another
     * transaction holds are skipped: that is this worker's outcome write
     * finishing them, and waiting for it (in whatever order the rows come)
     * deadlocked with it.
     */
    async renew(owner: string, messageIds: string[], leaseUntil: string): Promise<number> {
      if (messageIds.length === 0) return 0;
      const result = await db
        .updateTable('delivery_jobs')
        .set({ lease_expires_at: leaseUntil })
        .where('message_id', 'in', (eb) => {
          let held = eb.selectFrom('delivery_jobs').select('message_id').where('lease_owner', '=', owner).where('state', '=', 'pending').where('message_id', 'in', messageIds);
          if (skipLocked) held = held.forUpdate().skipLocked();
          return held;
        })
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /**
     * Ends the message's job before its first attempt, marking it done with
     * `reason`: only while it is pending, not yet due, never claimed and held
     * by no one. One conditional statement, so a claim and a cancel racing for
     * the job cannot both win (on PostgreSQL the loser re-reads the row the
     * winner wrote, and its condition no longer holds). False when it did not hold.
     */
    async cancelBeforeDue(messageId: string, reason: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('delivery_jobs')
        .set({ state: 'done', last_error: reason, updated_at: now })
        .where('message_id', '=', messageId)
        .where('state', '=', 'pending')
        .where('attempts', '=', 0)
        .where('lease_owner', 'is', null)
        .where('available_at', '>', now)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Jobs not yet done: the queue's length, for benchmarks and operators. */
    async countPending(): Promise<number> {
      const row = await db
        .selectFrom('delivery_jobs')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('state', '=', 'pending')
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Gives back jobs (named by their messages' ids) the owner claimed but never started, uncounting the attempt the claim counted. */
    async unclaim(messageIds: string[], owner: string, now: string): Promise<number> {
      if (messageIds.length === 0) return 0;
      const result = await db
        .updateTable('delivery_jobs')
        .set((eb) => ({ lease_owner: null, lease_expires_at: null, attempts: eb('attempts', '-', 1), updated_at: now }))
        .where('message_id', 'in', messageIds)
        .where('lease_owner', '=', owner)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Gives back every job the owner holds, due at once: a worker stopping cleanly does not make them wait out the lease. */
    async releaseAll(owner: string, now: string): Promise<number> {
      const result = await db
        .updateTable('delivery_jobs')
        .set({ lease_owner: null, lease_expires_at: null, updated_at: now })
        .where('lease_owner', '=', owner)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    deliveryJobs: ReturnType<typeof createDeliveryJobsRepository>;
  }
}
