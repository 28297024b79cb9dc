import type { Db } from '../db/database.js';

/** Rows one pruning step removed (or, for `messages_content`, emptied), by table. Each step returns null instead when it found nothing left to do. */
export type PrunedRows = Record<string, number>;

/** The content pass's row in retention_marks. */
const CONTENT_MARK = 'content';

/**
 * Bound on the tag rows one DELETE names by their key: five parameters each,
 * well inside SQLite's 32,766 and PostgreSQL's 65,535.
 */
const TAG_KEYS_PER_STATEMENT = 500;

function count(result: { numDeletedRows?: bigint; numUpdatedRows?: bigint }): number {
  return Number(result.numDeletedRows ?? result.numUpdatedRows ?? 0n);
}

/**
 * All of retention's SQL (src/retention/). A message still to be delivered
 * (its job pending: scheduled, or waiting for a retry) is never pruned,
 * whatever its age: its content is what will be sent.
 *
 * Ages are read off ids: ids are `<prefix>_<ULID>`, whose first characters
 * are the creation time, so "made before the cutoff" is `id < boundary`, a
 * range of the primary key (ids.ts, firstIdAt); no index on a timestamp
 * is kept for it. The content pass keeps its place in that order
 * (retention_marks, 0024) rather than an index of the messages whose content
 * is kept, which every send would write.
 */
export function createRetentionRepository(db: Db) {
  /** Up to `limit` messages made before `boundary` with no delivery still to do, oldest first. */
  async function settledMessagesBefore(boundary: string, limit: number): Promise<string[]> {
    const rows = await db
      .selectFrom('messages as m')
      .select('m.id')
      .where('m.id', '<', boundary)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('delivery_jobs as j').select('j.message_id').whereRef('j.message_id', '=', 'm.id').where('j.state', '=', 'pending'))),
      )
      .orderBy('m.id')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  /** Up to `limit` messages the content pass held whose job is no longer pending. */
  async function releasedHeld(limit: number): Promise<string[]> {
    const rows = await db
      .selectFrom('retention_held as h')
      .select('h.message_id')
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('delivery_jobs as j').select('j.message_id').whereRef('j.message_id', '=', 'h.message_id').where('j.state', '=', 'pending'))),
      )
      .orderBy('h.message_id')
      .limit(limit)
      .execute();
    return rows.map((row) => row.message_id);
  }

  /**
   * The content pass's next `limit` messages after its mark and before `boundary`: those whose
   * content is still there and whose job is done (or that have none) to expire; those whose job is
   * pending are held, and the mark moves past all of them. Returns what to expire and how many it passed.
   */
  async function walkForContent(boundary: string, limit: number): Promise<{ expire: string[]; passed: number }> {
    const mark = await db.selectFrom('retention_marks').select('after_id').where('name', '=', CONTENT_MARK).executeTakeFirst();
    const passed = await db
      .selectFrom('messages as m')
      // The job is keyed by its message (0023): a look-up of its key per message.
      .leftJoin('delivery_jobs as j', 'j.message_id', 'm.id')
      .select(['m.id', 'm.content_expired_at', 'j.state'])
      .where('m.id', '>', mark?.after_id ?? '')
      .where('m.id', '<', boundary)
      .orderBy('m.id')
      .limit(limit)
      .execute();
    if (passed.length === 0) return { expire: [], passed: 0 };
    const held = passed.filter((row) => row.state === 'pending').map((row) => ({ message_id: row.id }));
    if (held.length > 0) await db.insertInto('retention_held').values(held).onConflict((oc) => oc.column('message_id').doNothing()).execute();
    const after_id = passed[passed.length - 1]!.id;
    await db.insertInto('retention_marks').values({ name: CONTENT_MARK, after_id }).onConflict((oc) => oc.column('name').doUpdateSet({ after_id })).execute();
    return { expire: passed.filter((row) => row.state !== 'pending' && row.content_expired_at === null).map((row) => row.id), passed: passed.length };
  }

  return {
    /**
     * Drops the bodies, attachment bytes and built MIME of up to `limit` messages
     * made before `boundary`, and marks them expired at `now`: first those held
     * earlier whose job has since finished, then the next ones after the pass's mark.
     */
    async expireContent(boundary: string, now: string, limit: number): Promise<PrunedRows | null> {
      const released = await releasedHeld(limit);
      const walked = released.length < limit ? await walkForContent(boundary, limit - released.length) : { expire: [], passed: 0 };
      if (released.length > 0) await db.deleteFrom('retention_held').where('message_id', 'in', released).execute();
      const ids = [...released, ...walked.expire];
      // Passing only messages still to be delivered is progress too: the round goes on.
      if (ids.length === 0) return walked.passed > 0 || released.length > 0 ? {} : null;
      return {
        // Emptied, not deleted: the detail still lists each attachment's name, type and size.
        message_attachments: count(await db.updateTable('message_attachments').set({ content: Buffer.alloc(0) }).where('message_id', 'in', ids).executeTakeFirst()),
        message_mime: count(await db.deleteFrom('message_mime').where('message_id', 'in', ids).executeTakeFirst()),
        sandbox_messages: count(await db.deleteFrom('sandbox_messages').where('message_id', 'in', ids).executeTakeFirst()),
        // Opens and clicks are content too (docs/tracking.md#what-is-recorded): who read, from where, what they followed.
        engagement_events: count(await db.deleteFrom('message_events').where('message_id', 'in', ids).where('type', 'in', ['opened', 'clicked']).executeTakeFirst()),
        engagement_firsts: count(await db.deleteFrom('engagement_firsts').where('message_id', 'in', ids).executeTakeFirst()),
        messages_content: count(
          await db.updateTable('messages').set({ html: null, text: null, content_expired_at: now }).where('id', 'in', ids).where('content_expired_at', 'is', null).executeTakeFirst(),
        ),
      };
    },

    /**
     * Deletes up to `limit` messages made before `boundary` with their log
     * entries (and those entries' tag rows), events and attempts; their jobs,
     * MIME and attachments go with them (foreign keys, on delete cascade).
     * The statistics counters are rows of their own and are not touched.
     */
    async deleteMessages(boundary: string, limit: number): Promise<PrunedRows | null> {
      const ids = await settledMessagesBefore(boundary, limit);
      if (ids.length === 0) return null;
      const entries = await db.selectFrom('log_entries').select(['id', 'workspace_id', 'created_at', 'tags']).where('message_id', 'in', ids).execute();
      const tagKeys = entries.flatMap((entry) =>
        entry.tags === null ? [] : Object.entries(JSON.parse(entry.tags) as Record<string, string>).map(([name, value]) => ({ ...entry, name, value })),
      );
      let tagRows = 0;
      for (let i = 0; i < tagKeys.length; i += TAG_KEYS_PER_STATEMENT) {
        const chunk = tagKeys.slice(i, i + TAG_KEYS_PER_STATEMENT);
        // By the whole key: the tag table is keyed for the logs' filter, not by entry.
        const result = await db
          .deleteFrom('log_entry_tags')
          .where((eb) =>
            eb.or(chunk.map((k) => eb.and({ workspace_id: k.workspace_id, name: k.name, value: k.value, created_at: k.created_at, log_id: k.id }))),
          )
          .executeTakeFirst();
        tagRows += count(result);
      }
      return {
        log_entry_tags: tagRows,
        log_entries: count(await db.deleteFrom('log_entries').where('message_id', 'in', ids).executeTakeFirst()),
        message_events: count(await db.deleteFrom('message_events').where('message_id', 'in', ids).executeTakeFirst()),
        delivery_attempts: count(await db.deleteFrom('delivery_attempts').where('message_id', 'in', ids).executeTakeFirst()),
        sandbox_messages: count(await db.deleteFrom('sandbox_messages').where('message_id', 'in', ids).executeTakeFirst()),
        engagement_firsts: count(await db.deleteFrom('engagement_firsts').where('message_id', 'in', ids).executeTakeFirst()),
        messages: count(await db.deleteFrom('messages').where('id', 'in', ids).executeTakeFirst()),
      };
    },

    /** Deletes up to `limit` settled webhook deliveries made before `boundary`; their attempts go with them (on delete cascade). */
    async deleteWebhookDeliveries(boundary: string, limit: number): Promise<PrunedRows | null> {
      const ids = await db.selectFrom('webhook_deliveries').select('id').where('id', '<', boundary).where('state', '!=', 'pending').orderBy('id').limit(limit).execute();
      if (ids.length === 0) return null;
      const result = await db.deleteFrom('webhook_deliveries').where('id', 'in', ids.map((row) => row.id)).executeTakeFirst();
      return { webhook_deliveries: count(result) };
    },

    /** Deletes up to `limit` inbound reports received before `cutoff` (an ISO time: their ids are digests, not ULIDs). */
    async deleteInboundReports(cutoff: string, limit: number): Promise<PrunedRows | null> {
      const ids = await db.selectFrom('inbound_reports').select('id').where('received_at', '<', cutoff).orderBy('received_at').limit(limit).execute();
      if (ids.length === 0) return null;
      const result = await db.deleteFrom('inbound_reports').where('id', 'in', ids.map((row) => row.id)).executeTakeFirst();
      return { inbound_reports: count(result) };
    },

    /**
     * Takes the lease on `name` for `owner` until `until`, or renews it: true
     * when `owner` holds it now; false while another owner's has not expired.
     */
    async takeLease(name: string, owner: string, now: string, until: string): Promise<boolean> {
      const result = await db
        .insertInto('maintenance_leases')
        .values({ name, owner, expires_at: until })
        .onConflict((oc) =>
          oc
            .column('name')
            .doUpdateSet({ owner, expires_at: until })
            .where((eb) => eb.or([eb('maintenance_leases.owner', '=', owner), eb('maintenance_leases.expires_at', '<', now)])),
        )
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
    },

    /** Gives the lease back, if `owner` still holds it. */
    async releaseLease(name: string, owner: string): Promise<void> {
      await db.deleteFrom('maintenance_leases').where('name', '=', name).where('owner', '=', owner).execute();
    },
  };
}

export type RetentionRepository = ReturnType<typeof createRetentionRepository>;

declare module '../db/store.js' {
  interface Repositories {
    retention: ReturnType<typeof createRetentionRepository>;
  }
}
