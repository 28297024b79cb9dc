import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeKindOfDb } from '../src/db/database.js';
import { acceptedSend, insertAcceptedRows } from './helpers/accepted-send.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

type Send = ReturnType<typeof acceptedSend>;

// The accepted-send path inserts messages, outbox rows and log entries together (bulk-insert.ts,
// insertTogether): one statement on PostgreSQL whatever the row counts, table by table on SQLite.
describe('messages, outbox rows and log entries inserted together', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const count = async (table: 'messages' | 'delivery_jobs' | 'log_entries', sends: Send[]) =>
    Number(
      (await t.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(table === 'messages' ? 'id' : ('message_id' as never), 'in', sends.map((s) => s.message.id))
        .executeTakeFirstOrThrow()).n,
    );

  it("writes every row of every table, for a few sends and for a batch past one statement's limits", async () => {
    for (const [sendCount, recipients] of [[3, 2], [300, 3]] as const) {
      const sends = Array.from({ length: sendCount }, () => acceptedSend(t.workspaceId, recipients));
      await t.store.transaction((repos) => insertAcceptedRows(repos, sends));
      assert.equal(await count('messages', sends), sendCount);
      assert.equal(await count('delivery_jobs', sends), sendCount);
      assert.equal(await count('log_entries', sends), sendCount * recipients);
    }
  });

  it('is all or nothing: an outbox row for a message not there fails it, and no message or entry stays', async () => {
    const sends = [acceptedSend(t.workspaceId, 1), acceptedSend(t.workspaceId, 1)];
    sends[1]!.job!.message_id = 'msg_not_there';
    if (storeKindOfDb(t.db) === 'postgres') {
      // Outside any transaction: only one statement makes the three inserts all or nothing.
      await assert.rejects(insertAcceptedRows(t.store, sends), /foreign key/);
    } else {
      // SQLite inserts table by table: the caller's transaction makes it all or nothing.
      await assert.rejects(t.store.transaction((repos) => insertAcceptedRows(repos, sends)), /FOREIGN KEY/);
    }
    assert.equal(await count('messages', sends), 0);
    assert.equal(await count('log_entries', sends), 0);
  });

  const sentCounts = async () => {
    const total = await t.db.selectFrom('log_counters').select('count').where('workspace_id', '=', t.workspaceId).where('type', '=', 'send').where('status', '=', 'sent').executeTakeFirst();
    const hourly = await t.db.selectFrom('log_hourly_counts').select((eb) => eb.fn.sum<number>('send_sent').as('n')).where('workspace_id', '=', t.workspaceId).executeTakeFirst();
    return { total: Number(total?.count ?? 0), hourly: Number(hourly?.n ?? 0) };
  };

  it('counts the entries it writes in both counters, on top of what they held', async () => {
    const before = await sentCounts();
    for (const [sendCount, recipients] of [[2, 3], [5, 1]] as const) {
      const sends = Array.from({ length: sendCount }, () => acceptedSend(t.workspaceId, recipients));
      await t.store.transaction((repos) => insertAcceptedRows(repos, sends));
    }
    assert.deepEqual(await sentCounts(), { total: before.total + 11, hourly: before.hourly + 11 });
  });

  it('refuses a counter change after the statement that counted last, and writes nothing of the transaction', async () => {
    const before = await sentCounts();
    const sends = [acceptedSend(t.workspaceId, 1), acceptedSend(t.workspaceId, 1)];
    await assert.rejects(
      t.store.transaction(async (repos) => {
        await insertAcceptedRows(repos, [sends[0]!]);
        await insertAcceptedRows(repos, [sends[1]!]);
      }),
      /The counters of this transaction were applied already/,
    );
    assert.equal(await count('messages', sends), 0);
    assert.equal(await count('log_entries', sends), 0);
    assert.deepEqual(await sentCounts(), before);
  });

  it('keeps every character of the text as given', async () => {
    const send = acceptedSend(t.workspaceId, 1);
    // `\\ud83d` is a backslash and five letters, not a surrogate: in JSON it looks like the escape of one at first sight.
    const subject = 'Grüße 😀 "quoted" \\ back\tslash\nnew line, 日本語 \u2028, C:\\ud83d';
    send.message.subject = subject;
    send.message.html = '<p>{"json": [1, null]}</p>';
    send.entries[0]!.subject = subject;
    await t.store.transaction((repos) => insertAcceptedRows(repos, [send]));
    const message = await t.db.selectFrom('messages').select(['subject', 'html', 'reply_to']).where('id', '=', send.message.id).executeTakeFirstOrThrow();
    assert.deepEqual(message, { subject, html: '<p>{"json": [1, null]}</p>', reply_to: null });
    const entry = await t.db.selectFrom('log_entries').select('subject').where('message_id', '=', send.message.id).executeTakeFirstOrThrow();
    assert.equal(entry.subject, subject);
    const job = await t.db.selectFrom('delivery_jobs').select(['attempts', 'lease_owner']).where('message_id', '=', send.message.id).executeTakeFirstOrThrow();
    assert.deepEqual(job, { attempts: 0, lease_owner: null });
  });
});
