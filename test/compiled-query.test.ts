import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compileOnce } from '../src/db/compiled-query.js';
import type { Db } from '../src/db/database.js';
import { bulkInsert, powerOfTwoChunks } from '../src/db/bulk-insert.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

describe('queries compiled once', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('splits rows into power-of-two chunks, largest first', () => {
    assert.deepEqual(powerOfTwoChunks([...'abcdefg']).map((c) => c.length), [4, 2, 1]);
    assert.deepEqual(powerOfTwoChunks(Array.from({ length: 600 })).map((c) => c.length), [256, 256, 64, 16, 8]);
    assert.deepEqual(powerOfTwoChunks([]), []);
  });

  it('refuses to run a query whose flattened parameters are not in the order Kysely binds them', async () => {
    const swapped = compileOnce(
      (db: Db, name: string, id: string) => db.selectFrom('workspaces').select('id').where('name', '=', name).where('id', '=', id),
      (name, id) => [id, name],
    );
    await assert.rejects(swapped(t.db, 'Test workspace', t.workspaceId), /flattened parameters do not match/);
  });

  it('runs one SQL text per parameter count with new values each time', async () => {
    const find = compileOnce((db: Db, ids: string[]) => db.selectFrom('workspaces').select('name').where('id', 'in', ids));
    assert.deepEqual(await find(t.db, [t.workspaceId]), [{ name: 'Test workspace' }]);
    const other = await t.newWorkspace('Second');
    assert.deepEqual(await find(t.db, [other.workspaceId]), [{ name: 'Second' }]);
    assert.equal((await find(t.db, [t.workspaceId, other.workspaceId, 'ws_missing'])).length, 2);
  });

  it('bulk-inserts every row with each value in its own column, whatever the chunk sizes', async () => {
    const insert = bulkInsert('suppressions', ['workspace_id', 'email', 'reason', 'source_message_id', 'created_at']);
    // 7 rows: chunks of 4, 2 and 1, each its own statement; the rows' key order differs from the column list on purpose.
    const rows = Array.from({ length: 7 }, (_, i) => ({
      created_at: `2026-01-0${i + 1}T00:00:00.000Z`,
      reason: `reason ${i}`,
      email: `bulk${i}@example.com`,
      source_message_id: i % 2 ? `msg_${i}` : null,
      workspace_id: t.workspaceId,
    }));
    await insert(t.db, rows);
    await insert(t.db, rows.slice(0, 0));
    const stored = await t.db.selectFrom('suppressions').selectAll().where('email', 'like', 'bulk%').orderBy('email').execute();
    assert.deepEqual(stored, rows);
  });
});
