import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { openDatabase, storeKindOfDb } from '../src/db/database.js';
import { createAcceptedSendWriter } from '../src/sending/acceptance/accepted-send-writer.js';
import type { Store } from '../src/db/store.js';
import { acceptedSend as makeAcceptedSend } from './helpers/accepted-send.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

describe('accepted-send writer', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const acceptedSend = (recipients: number, messageId?: string) => makeAcceptedSend(t.workspaceId, recipients, messageId);

  /** The store, counting the transactions the writer opens. */
  function countingStore(): { store: Store; transactions: () => number } {
    let count = 0;
    return { store: { ...t.store, transaction: (work) => (count++, t.store.transaction(work)) }, transactions: () => count };
  }

  const rowsOf = async (messageIds: string[]) =>
    Number((await t.db.selectFrom('log_entries').select((eb) => eb.fn.countAll<number>().as('n')).where('message_id', 'in', messageIds).executeTakeFirstOrThrow()).n);

  it('writes the sends of one event-loop turn in one transaction, each resolved after the commit', async () => {
    const { store, transactions } = countingStore();
    const writer = createAcceptedSendWriter(store);
    // Another connection (pool) sees committed rows only: what it sees once a promise resolves is durable.
    const reader = openDatabase(loadConfig(t.storeEnv));
    const visible = async (messageId: string) =>
      Number((await reader.selectFrom('log_entries').select((eb) => eb.fn.countAll<number>().as('n')).where('message_id', '=', messageId).executeTakeFirstOrThrow()).n);
    // 300 sends of 3 recipients: more rows than one INSERT takes, so chunking is exercised too.
    const sends = Array.from({ length: 300 }, () => acceptedSend(3));
    let seenAtResolve: number[];
    try {
      seenAtResolve = await Promise.all(sends.map((send) => writer.write(send).then(() => visible(send.message.id))));
    } finally {
      await reader.destroy();
    }
    assert.deepEqual(new Set(seenAtResolve), new Set([3]), 'every send was committed when its promise resolved');
    assert.equal(transactions(), 1);
    assert.equal(await rowsOf(sends.map((s) => s.message.id)), 900);
    const jobs = await t.db.selectFrom('delivery_jobs').select('message_id').where('message_id', 'in', sends.map((s) => s.message.id)).execute();
    assert.equal(jobs.length, 300);
  });

  /**
   * Every commit of the store fails from now until the answer is called. On PostgreSQL, where a batch's
   * COMMIT rides with its last statement (db/pipelined-postgres.ts), a real one: a deferred constraint
   * trigger raises at COMMIT. SQLite's COMMIT runs after the transaction's work: failing that work at its
   * end fails the commit alike.
   */
  async function failEveryCommit(): Promise<{ store: Store; restore(): Promise<void> }> {
    if (storeKindOfDb(t.db) === 'sqlite') {
      const store: Store = {
        ...t.store,
        transaction: (work) =>
          t.store.transaction(async (repos) => {
            await work(repos);
            throw new Error('disk I/O error');
          }),
      };
      return { store, restore: async () => {} };
    }
    await sql`create function fail_at_commit() returns trigger language plpgsql as $$ begin raise exception 'disk I/O error'; end $$`.execute(t.db);
    await sql`create constraint trigger fail_at_commit after insert on messages deferrable initially deferred for each row execute function fail_at_commit()`.execute(t.db);
    return {
      store: t.store,
      async restore() {
        await sql`drop trigger fail_at_commit on messages`.execute(t.db);
        await sql`drop function fail_at_commit()`.execute(t.db);
      },
    };
  }

  it('rejects every caller of a batch whose commit fails, and keeps none of its rows', async () => {
    const { store, restore } = await failEveryCommit();
    const sends = [acceptedSend(1), acceptedSend(2)];
    let results: PromiseSettledResult<{ queued: boolean }>[];
    try {
      const writer = createAcceptedSendWriter(store);
      results = await Promise.allSettled(sends.map((send) => writer.write(send)));
    } finally {
      await restore();
    }
    assert.deepEqual(results.map((r) => r.status === 'rejected' && (r.reason as Error).message), ['disk I/O error', 'disk I/O error']);
    assert.equal(await rowsOf(sends.map((s) => s.message.id)), 0);
  });

  it('retries a failed batch send by send, so only the bad send fails', async () => {
    const { store, transactions } = countingStore();
    const writer = createAcceptedSendWriter(store);
    const taken = acceptedSend(1);
    await writer.write(taken);
    const good = [acceptedSend(2), acceptedSend(2)];
    const duplicate = acceptedSend(1, taken.message.id); // same message id: the primary key refuses it
    const results = await Promise.allSettled([writer.write(good[0]!), writer.write(duplicate), writer.write(good[1]!)]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.equal(await rowsOf(good.map((s) => s.message.id)), 4);
    assert.equal(await rowsOf([taken.message.id]), 1, 'the duplicate left no log entries behind');
    assert.equal(transactions(), 1 + 1 + 3, 'the first send, the failed batch, then one per send');
  });
  it('holds back suppressed recipients across a batch of several workspaces, in the transaction that writes it', async () => {
    const { store, transactions } = countingStore();
    const writer = createAcceptedSendWriter(store);
    const other = await t.newWorkspace();
    const list = (workspace_id: string, email: string) =>
      t.store.suppressions.add({ workspace_id, email, reason: 'complaint', source_message_id: null, created_at: new Date().toISOString() });
    // r1 is listed in this workspace only; the other workspace lists r0 and r2. 37 recipients: an IN list padded to 64.
    await list(t.workspaceId, 'r1@example.com');
    await list(other.workspaceId, 'r0@example.com');
    await list(other.workspaceId, 'r2@example.com');
    const sends = [acceptedSend(37), makeAcceptedSend(other.workspaceId, 3), makeAcceptedSend(other.workspaceId, 1), acceptedSend(1)];
    sends[1]!.entries[0]!.recipient = 'kept@example.com';
    sends[1]!.entries[1]!.recipient = 'R0@Example.com'; // compared lower-cased, stored as given
    const outcomes = await Promise.all(sends.map((send) => writer.write(send)));
    assert.deepEqual(outcomes, [{ queued: true }, { queued: true }, { queued: false }, { queued: true }]);
    assert.equal(transactions(), 1);

    const entries = await t.db.selectFrom('log_entries').select(['message_id', 'recipient', 'status', 'error']).where('message_id', 'in', sends.map((s) => s.message.id)).orderBy('id').execute();
    const statusOf = (send: number) => entries.filter((e) => e.message_id === sends[send]!.message.id).map((e) => `${e.recipient}:${e.status}`);
    assert.deepEqual(statusOf(0).filter((s) => !s.endsWith(':sent')), ['r1@example.com:suppressed']);
    assert.deepEqual(statusOf(1), ['kept@example.com:sent', 'R0@Example.com:suppressed', 'r2@example.com:suppressed']);
    assert.deepEqual(statusOf(2), ['r0@example.com:suppressed']);
    assert.deepEqual(statusOf(3), ['r0@example.com:sent']);
    assert.equal(entries.find((e) => e.recipient === 'r1@example.com')?.error, 'Recipient is on the suppression list (complaint)');

    const jobs = await t.db.selectFrom('delivery_jobs').select('message_id').where('message_id', 'in', sends.map((s) => s.message.id)).execute();
    assert.deepEqual(new Set(jobs.map((j) => j.message_id)), new Set([sends[0]!.message.id, sends[1]!.message.id, sends[3]!.message.id]));
    const events = await t.db.selectFrom('message_events').select(['message_id', 'type', 'recipient']).where('message_id', 'in', sends.map((s) => s.message.id)).execute();
    assert.equal(events.length, 4);
    assert.ok(events.every((e) => e.type === 'suppressed'));
  });
});
