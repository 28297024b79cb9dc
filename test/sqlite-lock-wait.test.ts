import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openSqlite, sqliteFileOf } from '../src/db/database.js';
import { LOCK_WAIT_MS } from '../src/db/sqlite-lock-wait.js';
import { StoreUnavailableError } from '../src/lib/errors.js';

// The embedded store's connections wait for each other's write lock in code of their own
// (src/db/sqlite-lock-wait.ts) rather than in SQLite's busy handler, which would put the waiting thread to
// sleep: on the thread that answers HTTP, the wait must leave the event loop running.
describe('a SQLite write waiting for another connection’s lock on the main thread', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  /** A store with a table, and a second connection to the same file (as the send writer thread has). */
  async function twoConnections() {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-lock-wait-'));
    dirs.push(dir);
    const db = openSqlite(dir);
    await sql`create table notes (id integer primary key, body text not null)`.execute(db);
    const other = new SQLite(sqliteFileOf(dir));
    return { db, other };
  }

  /** Counts event-loop turns (a 5 ms interval's runs) while `ms` pass. */
  async function turnsDuring(ms: number): Promise<number> {
    let turns = 0;
    const ticker = setInterval(() => turns++, 5);
    await new Promise((resolve) => setTimeout(resolve, ms));
    clearInterval(ticker);
    return turns;
  }

  it('keeps the event loop turning while it waits, and writes once the lock is released', { timeout: 20_000 }, async () => {
    const { db, other } = await twoConnections();
    try {
      other.prepare('begin immediate').run();
      let settled = false;
      const writing = sql`insert into notes (body) values (${'after the lock'})`.execute(db).finally(() => (settled = true));
      // SQLite's busy handler would hold this thread for the whole wait: not one interval run in 300 ms.
      const turns = await turnsDuring(300);
      assert.equal(settled, false, 'the write waits while the other connection holds the lock');
      assert.ok(turns >= 20, `the event loop ran ${turns} times in 300 ms`);
      other.prepare('commit').run();
      await writing;
      assert.deepEqual(other.prepare('select body from notes').all(), [{ body: 'after the lock' }]);
    } finally {
      other.close();
      await db.destroy();
    }
  });

  it('waits inside a transaction’s BEGIN IMMEDIATE the same way, and the transaction runs whole', { timeout: 20_000 }, async () => {
    const { db, other } = await twoConnections();
    try {
      other.prepare('begin immediate').run();
      other.prepare('insert into notes (body) values (?)').run('first');
      const writing = db.transaction().execute(async (trx) => {
        const [row] = (await sql<{ n: number }>`select count(*) as n from notes`.execute(trx)).rows;
        await sql`insert into notes (body) values (${`second, after ${row!.n}`})`.execute(trx);
      });
      assert.ok((await turnsDuring(100)) >= 5);
      other.prepare('commit').run();
      await writing;
      // The transaction began only once the lock was free: it saw the other's row.
      assert.deepEqual(other.prepare('select body from notes order by id').all(), [{ body: 'first' }, { body: 'second, after 1' }]);
    } finally {
      other.close();
      await db.destroy();
    }
  });

  it(`gives up with SQLITE_BUSY after ${LOCK_WAIT_MS} ms, writing nothing`, { timeout: 20_000 }, async () => {
    const { db, other } = await twoConnections();
    try {
      other.prepare('begin immediate').run();
      const started = Date.now();
      // A lock held past the wait is the store being unavailable for now: a 503, its cause SQLite's own error.
      await assert.rejects(
        sql`insert into notes (body) values (${'never'})`.execute(db),
        (error) => error instanceof StoreUnavailableError && (error.cause as { code?: string }).code === 'SQLITE_BUSY',
      );
      const waited = Date.now() - started;
      assert.ok(waited >= LOCK_WAIT_MS && waited < LOCK_WAIT_MS + 1_500, `gave up after ${waited} ms`);
      other.prepare('rollback').run();
      assert.deepEqual(other.prepare('select body from notes').all(), []);
    } finally {
      other.close();
      await db.destroy();
    }
  });
});
