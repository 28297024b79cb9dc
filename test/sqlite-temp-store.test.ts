import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openSqlite } from '../src/db/database.js';

// The send writer's connection keeps SQLite's temporary files in memory (SqliteOptions.memoryTempStore):
// a multi-row statement inside a transaction journals the pages it changes, and past 64 KiB that journal
// went to a temporary file at every batch of sends.
describe('SQLite temporary files', () => {
  const root = mkdtempSync(join(tmpdir(), 'mailroom-temp-store-'));
  // SQLite reads SQLITE_TMPDIR whenever it makes a temporary file; its files are unlinked at once, open until the transaction ends.
  const tempDir = join(root, 'tmp');
  const previous = process.env.SQLITE_TMPDIR;
  after(() => {
    if (previous === undefined) delete process.env.SQLITE_TMPDIR;
    else process.env.SQLITE_TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  });

  /** Files this process holds open in the temporary directory, during one large update in a transaction. */
  async function tempFilesDuringLargeUpdate(memoryTempStore: boolean): Promise<string[]> {
    const dataDir = mkdtempSync(join(root, 'data-'));
    rmSync(tempDir, { recursive: true, force: true });
    mkdirSync(tempDir);
    process.env.SQLITE_TMPDIR = tempDir;
    const db = openSqlite(dataDir, { memoryTempStore });
    try {
      await sql`create table notes (id integer primary key, body text not null unique)`.execute(db);
      await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 5000)
        insert into notes (body) select 'note ' || i || ${'-'.repeat(50)} from n`.execute(db);
      return await db.transaction().execute(async (trx) => {
        // Every page of the table and its unique index changes, and the statement may fail halfway: journalled.
        await sql`update notes set body = body || 'x'`.execute(trx);
        return readdirSync('/proc/self/fd')
          .map((fd) => {
            try {
              return readlinkSync(join('/proc/self/fd', fd));
            } catch {
              return '';
            }
          })
          .filter((target) => target.startsWith(tempDir));
      });
    } finally {
      await db.destroy();
    }
  }

  it('go to a file by default, and stay in memory with memoryTempStore', async () => {
    assert.equal((await tempFilesDuringLargeUpdate(false)).length, 1, 'the statement journal spilled to a temporary file');
    assert.deepEqual(await tempFilesDuringLargeUpdate(true), []);
  });
});
