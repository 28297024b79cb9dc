import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { openDatabase, type Db } from '../src/db/database.js';
import { endsTransaction } from '../src/db/pipelined-postgres.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

/**
 * A TCP relay on loopback in front of the real PostgreSQL that records what the client writes and,
 * while `hold` is on, keeps the server's answers back: what the client writes meanwhile, it wrote
 * without waiting for an answer.
 */
async function startHoldingRelay(target: URL): Promise<{ url: string; written: () => string; hold(on: boolean): void; close(): Promise<void> }> {
  let holding = false;
  let written = '';
  const held: { socket: Socket; chunk: Buffer }[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (chunk: Buffer) => {
      written += chunk.toString('latin1');
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => (holding ? held.push({ socket: client, chunk }) : client.write(chunk)));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: url.toString(),
    written: () => written,
    hold(on) {
      holding = on;
      if (!on) for (const { socket, chunk } of held.splice(0)) socket.write(chunk);
    },
    async close() {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

// PostgreSQL by nature: scripts/run-tests.ts runs this file in the PostgreSQL pass only.
describe('pipelined transactions on PostgreSQL (db/pipelined-postgres.ts)', () => {
  let store: FreshStore;
  let relay: Awaited<ReturnType<typeof startHoldingRelay>>;
  let db: Db;
  /** A connection of its own, straight to the server: what it sees is committed. */
  let observer: pg.Client;

  before(async () => {
    store = await freshStore('postgres');
    relay = await startHoldingRelay(new URL(store.env.DATABASE_URL!));
    // One pooled connection: every transaction below runs on it, one after the other.
    db = openDatabase({ dataDir: store.dataDir, databaseUrl: relay.url, databasePoolSize: 1, databaseStatementTimeoutMs: 0 });
    observer = new pg.Client({ connectionString: store.env.DATABASE_URL });
    await observer.connect();
    await observer.query('create table pipelined (id int primary key)');
  });
  after(async () => {
    relay.hold(false);
    await observer.end();
    await db.destroy();
    await relay.close();
    await store.drop();
  });
  beforeEach(async () => {
    relay.hold(false);
    await observer.query('truncate pipelined');
    // The pool's one connection open and idle, its start-up answered.
    await sql`select 1`.execute(db);
  });

  const ids = async () => (await observer.query<{ id: number }>('select id from pipelined order by id')).rows.map((r) => r.id);
  /** What the client wrote from now on. */
  const writtenFromNow = () => {
    const start = relay.written().length;
    return () => relay.written().slice(start);
  };

  it("writes BEGIN and the transaction's first statement without waiting for BEGIN's answer", async () => {
    relay.hold(true);
    const written = writtenFromNow();
    const done = db.transaction().execute(async (trx) => {
      await sql`insert into pipelined (id) values (${1}) -- first statement`.execute(trx);
    });
    await waitFor(() => written().includes('-- first statement'), 'the first statement written while BEGIN is unanswered', { timeoutMs: 5_000 });
    assert.match(written(), /begin\0[\s\S]*-- first statement/, 'BEGIN first, then the statement');
    relay.hold(false);
    await done;
    assert.deepEqual(await ids(), [1]);
  });

  it('the first statement runs inside the transaction: a failure after it rolls it back', async () => {
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await sql`insert into pipelined (id) values (${2})`.execute(trx);
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    assert.deepEqual(await ids(), []);
  });

  it('writes COMMIT right behind a statement marked endsTransaction, and the transaction is committed', async () => {
    const done = db.transaction().execute(async (trx) => {
      await sql`insert into pipelined (id) values (${3})`.execute(trx);
      relay.hold(true);
      const written = writtenFromNow();
      const last = trx.executeQuery(endsTransaction(CompiledQuery.raw('insert into pipelined (id) values ($1) -- last statement', [4])));
      await waitFor(() => /-- last statement[\s\S]*commit\0/.test(written()), 'COMMIT written while the last statement is unanswered', { timeoutMs: 5_000 });
      relay.hold(false);
      await last;
      // Committed already, before Kysely's own end of the transaction.
      assert.deepEqual(await ids(), [3, 4]);
    });
    await done;
    assert.deepEqual(await ids(), [3, 4]);
  });

  it('a failing last statement rolls the whole transaction back, and the connection is clean for the next', async () => {
    await observer.query('insert into pipelined (id) values (5)');
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await sql`insert into pipelined (id) values (${6})`.execute(trx);
        await trx.executeQuery(endsTransaction(CompiledQuery.raw('insert into pipelined (id) values ($1)', [5])));
      }),
      (error: { code?: string }) => error.code === '23505',
    );
    assert.deepEqual(await ids(), [5], 'the statement before it was rolled back with it');
    await db.transaction().execute(async (trx) => {
      await sql`insert into pipelined (id) values (${7})`.execute(trx);
    });
    assert.deepEqual(await ids(), [5, 7], 'the next transaction on the same connection commits');
  });

  it('refuses a statement after the one that ended the transaction, rather than run it outside', async () => {
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.executeQuery(endsTransaction(CompiledQuery.raw('insert into pipelined (id) values ($1)', [8])));
        await sql`insert into pipelined (id) values (${9})`.execute(trx);
      }),
      /after the one that ended its transaction/,
    );
    assert.deepEqual(await ids(), [8], 'the marked statement was committed; the one after it ran nowhere');
  });

  it('outside a transaction the mark changes nothing: no COMMIT is written', async () => {
    const written = writtenFromNow();
    await db.executeQuery(endsTransaction(CompiledQuery.raw('insert into pipelined (id) values ($1) -- alone', [10])));
    await sql`select 1 as after_alone`.execute(db);
    assert.ok(written().includes('-- alone'));
    assert.ok(!written().includes('commit\0'), 'no COMMIT outside a transaction');
    assert.deepEqual(await ids(), [10]);
  });
});
