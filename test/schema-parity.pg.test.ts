import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/database.js';
import { openMigratedDatabase } from '../src/composition/store-runtime.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';

/** Each store's own word for a column type, mapped to the portable type the migration asked for. */
const PORTABLE_TYPE: Record<string, string> = { text: 'text', integer: 'integer', int4: 'integer', bigint: 'bigint', int8: 'bigint', blob: 'binary', bytea: 'binary' };

async function shape(db: Db) {
  const tables = await db.introspection.getTables();
  return Object.fromEntries(
    tables
      .filter((t) => !t.name.startsWith('mailroom_migrations'))
      .map((t) => [
        t.name,
        Object.fromEntries(
          t.columns.map((c) => [c.name, { type: PORTABLE_TYPE[c.dataType.toLowerCase()] ?? c.dataType, nullable: c.isNullable, hasDefault: c.hasDefaultValue }]),
        ),
      ]),
  );
}

// Both stores by nature: scripts/run-tests.ts runs this file in the PostgreSQL pass only.
describe('migrations', () => {
  let sqlite: FreshStore;
  let postgres: FreshStore;
  const dbs: Db[] = [];
  before(async () => {
    [sqlite, postgres] = await Promise.all([freshStore('sqlite'), freshStore('postgres')]);
  });
  after(async () => {
    for (const db of dbs) await db.destroy();
    await sqlite.drop();
    await postgres.drop();
  });

  it('produce the same tables, columns, types, nullability and defaults on SQLite and PostgreSQL', async () => {
    const onSqlite = await openMigratedDatabase(loadConfig(sqlite.env));
    const onPostgres = await openMigratedDatabase(loadConfig(postgres.env));
    dbs.push(onSqlite, onPostgres);
    const [a, b] = [await shape(onSqlite), await shape(onPostgres)];
    assert.ok(Object.keys(a).length >= 8, 'every table is there');
    assert.deepEqual(b, a);
  });
});
