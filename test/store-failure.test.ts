import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { cloneError, reviveError, storeFailureKindOf } from '../src/db/store-failure.js';
import { ServiceUnavailableError, StoreFullError, StoreUnavailableError } from '../src/lib/errors.js';
import { freshStore, TEST_STORE, type FreshStore } from './helpers/test-store.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('which store errors are outages (db/store-failure.ts)', () => {
  it('tells a store that is away or full from a statement that is wrong', () => {
    const cases: [Error, ReturnType<typeof storeFailureKindOf>][] = [
      // PostgreSQL: the server ending or refusing sessions, short of resources, the database gone …
      [withCode('57P01', 'terminating connection due to administrator command'), 'unavailable'],
      [withCode('57P03', 'the database system is starting up'), 'unavailable'],
      [withCode('53300', 'sorry, too many clients already'), 'unavailable'],
      [withCode('3D000', 'database "mailroom" does not exist'), 'unavailable'],
      [withCode('08006', 'connection failure'), 'unavailable'],
      [withCode('53100', 'could not extend file: No space left on device'), 'full'],
      // … its socket failing, and node-postgres' own words for a lost connection …
      [withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'unavailable'],
      [withCode('ECONNRESET', 'read ECONNRESET'), 'unavailable'],
      [new Error('Connection terminated unexpectedly'), 'unavailable'],
      [new Error('timeout exceeded when trying to connect'), 'unavailable'],
      // … but not a statement's own fault: a constraint, a cancelled statement (DATABASE_STATEMENT_TIMEOUT_MS), bad SQL.
      [withCode('23505', 'duplicate key value violates unique constraint'), undefined],
      [withCode('23503', 'violates foreign key constraint'), undefined],
      [withCode('57014', 'canceling statement due to statement timeout'), undefined],
      [withCode('42601', 'syntax error'), undefined],
      // SQLite: the lock held past the wait, a failing disk, a full one; not a constraint.
      [withCode('SQLITE_BUSY', 'database is locked'), 'unavailable'],
      [withCode('SQLITE_IOERR_WRITE', 'disk I/O error'), 'unavailable'],
      [withCode('SQLITE_CANTOPEN', 'unable to open database file'), 'unavailable'],
      [withCode('SQLITE_FULL', 'database or disk is full'), 'full'],
      [withCode('SQLITE_CONSTRAINT_FOREIGNKEY', 'FOREIGN KEY constraint failed'), undefined],
      [withCode('SQLITE_BUSY_SNAPSHOT', 'database is locked'), undefined],
      [new Error('something else'), undefined],
    ];
    assert.deepEqual(
      cases.map(([error]) => [error.message, storeFailureKindOf(error)]),
      cases.map(([error, kind]) => [error.message, kind]),
    );
  });

  it('keeps a failure typed, and its cause for the log, across threads (structured clone keeps neither)', () => {
    const crossed = (error: unknown) => reviveError(structuredClone(cloneError(error)));
    const full = crossed(new StoreFullError({ cause: withCode('SQLITE_FULL', 'database or disk is full') }));
    assert.ok(full instanceof StoreFullError);
    assert.deepEqual([(full.cause as Error).message, (full.cause as { code?: string }).code], ['database or disk is full', 'SQLITE_FULL']);
    assert.ok(crossed(withCode('SQLITE_IOERR_FSYNC')) instanceof StoreUnavailableError);
    const constraint = crossed(withCode('SQLITE_CONSTRAINT_FOREIGNKEY', 'FOREIGN KEY constraint failed'));
    assert.ok(!(constraint instanceof ServiceUnavailableError));
    assert.equal((constraint as Error).message, 'FOREIGN KEY constraint failed');
  });

  describe(`through the ${TEST_STORE} driver`, () => {
    let store: FreshStore;
    after(() => store?.drop());

    it("leaves a statement's own error as the driver threw it: a bug, answered 500", async () => {
      store = await freshStore();
      const db = openDatabase(loadConfig({ ...store.env, LOG_LEVEL: 'silent' }));
      try {
        await sql`create table notes (id integer primary key)`.execute(db);
        await sql`insert into notes (id) values (1)`.execute(db);
        await assert.rejects(sql`insert into notes (id) values (1)`.execute(db), (error: { code?: string }) => {
          assert.ok(!(error instanceof ServiceUnavailableError));
          assert.equal(error.code, TEST_STORE === 'postgres' ? '23505' : 'SQLITE_CONSTRAINT_PRIMARYKEY');
          return true;
        });
      } finally {
        await db.destroy();
      }
    });
  });
});
