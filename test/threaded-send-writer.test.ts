import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { createThreadedSendWriter } from '../src/sending/acceptance/threaded-send-writer.js';
import { acceptedSend } from './helpers/accepted-send.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

describe('threaded send writer (SQLite)', () => {
  let t: TestApp;
  before(async () => {
    // This writer exists for SQLite only; it is tested on SQLite in every run.
    t = await createTestApp({}, { store: 'sqlite' });
  });
  after(() => t.close());

  const entriesOf = (reader: SQLite.Database, messageId: string) =>
    (reader.prepare('select count(*) as n from log_entries where message_id = ?').get(messageId) as { n: number }).n;

  it('writes on its own connection and resolves each send only once its rows are committed', async () => {
    const writer = createThreadedSendWriter(t.config.dataDir);
    // A third connection sees committed rows only.
    const reader = new SQLite(join(t.config.dataDir, 'mailroom.db'), { readonly: true });
    try {
      const sends = Array.from({ length: 300 }, () => acceptedSend(t.workspaceId, 3));
      const seenAtResolve = await Promise.all(sends.map((send) => writer.write(send).then(() => entriesOf(reader, send.message.id))));
      assert.deepEqual(new Set(seenAtResolve), new Set([3]), 'every send was committed when its promise resolved');
      const jobs = reader.prepare('select count(*) as n from delivery_jobs where message_id in (select value from json_each(?))').get(JSON.stringify(sends.map((s) => s.message.id))) as { n: number };
      assert.equal(jobs.n, 300);
    } finally {
      reader.close();
      await writer.close();
    }
  });

  it('fails only the send that cannot be written, with the database error', async () => {
    const writer = createThreadedSendWriter(t.config.dataDir);
    try {
      const good = Array.from({ length: 10 }, () => acceptedSend(t.workspaceId, 1));
      const orphan = acceptedSend('ws_does_not_exist', 1); // the foreign key to workspaces refuses it
      const results = await Promise.allSettled([...good.slice(0, 5), orphan, ...good.slice(5)].map((send) => writer.write(send)));
      assert.deepEqual(results.map((r) => r.status), [...Array(5).fill('fulfilled'), 'rejected', ...Array(5).fill('fulfilled')]);
      const reason = (results[5] as PromiseRejectedResult).reason as Error;
      assert.ok(reason instanceof Error);
      assert.match(reason.message, /FOREIGN KEY/);
      assert.equal(
        Number((await t.db.selectFrom('log_entries').select((eb) => eb.fn.countAll<number>().as('n')).where('message_id', 'in', good.map((s) => s.message.id)).executeTakeFirstOrThrow()).n),
        10,
      );
    } finally {
      await writer.close();
    }
  });

  it('rejects the writes it holds when its thread cannot start, saying why, and tries again on the next write', async () => {
    const notADirectory = join(t.config.dataDir, 'plain-file');
    writeFileSync(notADirectory, '');
    const writer = createThreadedSendWriter(join(notADirectory, 'data'));
    try {
      await assert.rejects(writer.write(acceptedSend(t.workspaceId, 1)), /The send writer thread failed: .*(ENOTDIR|not a directory)/);
      await assert.rejects(writer.write(acceptedSend(t.workspaceId, 1)), /The send writer thread failed/);
    } finally {
      await writer.close();
    }
  });

  it('refuses writes once closed', async () => {
    const writer = createThreadedSendWriter(t.config.dataDir);
    await writer.write(acceptedSend(t.workspaceId, 1));
    await writer.close();
    await assert.rejects(writer.write(acceptedSend(t.workspaceId, 1)), /The send writer is closed/);
  });
});
