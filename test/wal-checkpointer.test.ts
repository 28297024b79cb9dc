import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import pino from 'pino';
import { openSqlite, sqliteFileOf, SQLITE_WRITER_CHECKPOINT_PAGES } from '../src/db/database.js';
import { startWalCheckpointer, type WalCheckpointer } from '../src/db/wal-checkpointer.js';
import { waitFor } from './helpers/wait-for.js';

/** A logger whose lines the test can read. */
function capturingLogger() {
  const lines: { msg?: string; err?: string }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, stream), lines };
}

describe('the WAL checkpointer thread', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-wal-'));
    dirs.push(dir);
    return dir;
  };
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('copies committed pages into the database file while the writer keeps its WAL', async () => {
    const dir = tempDir();
    const db = openSqlite(dir, { backgroundCheckpoints: true });
    const { logger, lines } = capturingLogger();
    let checkpointer: WalCheckpointer | undefined;
    try {
      await sql`create table filler (id integer primary key, body text not null)`.execute(db);
      const before = statSync(sqliteFileOf(dir)).size;
      // About 4 MiB in 1 KiB rows: far below the writer's own checkpoint, so only the thread can move it.
      const body = 'x'.repeat(1024);
      for (let batch = 0; batch < 8; batch++) {
        await db.transaction().execute(async (trx) => {
          for (let i = 0; i < 512; i++) await sql`insert into filler (body) values (${body})`.execute(trx);
        });
      }
      assert.ok(4 * 1024 * 1024 / 4096 < SQLITE_WRITER_CHECKPOINT_PAGES);
      assert.equal(statSync(sqliteFileOf(dir)).size, before, 'nothing reaches the database file before a checkpoint');

      checkpointer = startWalCheckpointer(dir, logger, 20);
      await waitFor(() => statSync(sqliteFileOf(dir)).size >= before + 4 * 1024 * 1024, 'the rows to be copied into the database file', { timeoutMs: 10_000 });
      assert.deepEqual(lines, []);
    } finally {
      await checkpointer?.stop();
      await db.destroy();
    }
  });

  it('keeps the WAL bounded under steady writing: the writer finds it copied and starts it over', async () => {
    const dir = tempDir();
    const db = openSqlite(dir, { backgroundCheckpoints: true });
    const { logger, lines } = capturingLogger();
    const checkpointer = startWalCheckpointer(dir, logger, 20);
    try {
      await sql`create table filler (id integer primary key, body text not null)`.execute(db);
      // 48 MiB in 1 MiB commits, three times the writer's own checkpoint size.
      const body = 'x'.repeat(1024);
      for (let batch = 0; batch < 48; batch++) {
        await db.transaction().execute(async (trx) => {
          for (let i = 0; i < 1024; i++) await sql`insert into filler (body) values (${body})`.execute(trx);
        });
      }
      const walBytes = statSync(`${sqliteFileOf(dir)}-wal`).size;
      assert.ok(walBytes < 24 * 1024 * 1024, `the WAL is ${walBytes} bytes after 48 MiB of writes`);
      assert.ok(statSync(sqliteFileOf(dir)).size >= 40 * 1024 * 1024, 'the rows reached the database file');
      assert.deepEqual(lines, []);
    } finally {
      await checkpointer.stop();
      await db.destroy();
    }
  });

  it('closes its connection on stop, so the last connection of the process removes the WAL', async () => {
    const dir = tempDir();
    const db = openSqlite(dir, { backgroundCheckpoints: true });
    const { logger } = capturingLogger();
    await sql`create table t (id integer primary key)`.execute(db);
    await sql`insert into t default values`.execute(db);
    const checkpointer = startWalCheckpointer(dir, logger, 20);
    try {
      // Its connection is open once it has checkpointed what is there: the WAL is copied into the file.
      await waitFor(() => statSync(sqliteFileOf(dir)).size > 4096, 'the first checkpoint', { timeoutMs: 10_000 });
    } finally {
      await checkpointer.stop();
      await db.destroy();
    }
    assert.equal(existsSync(`${sqliteFileOf(dir)}-wal`), false);
  });

  it('says why when it cannot open the store, and stops without ado', async () => {
    const { logger, lines } = capturingLogger();
    const checkpointer = startWalCheckpointer(join(tempDir(), 'missing', 'dir'), logger, 20);
    await waitFor(() => lines.length > 0, 'the warning');
    assert.match(lines[0]!.msg ?? '', /WAL checkpointer could not open the store/);
    assert.match(lines[0]!.err ?? '', /unable to open database file|directory does not exist/i);
    await checkpointer.stop();
  });
  it('does not keep the process alive: a process that never stops it still ends', () => {
    const dir = tempDir();
    const script = `
      import pino from 'pino';
      import { startWalCheckpointer } from ${JSON.stringify(new URL('../src/db/wal-checkpointer.ts', import.meta.url).href)};
      startWalCheckpointer(${JSON.stringify(dir)}, pino({ level: 'warn' }), 20);
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), timeout: 20_000, encoding: 'utf8' });
    assert.equal(child.signal, null, 'ended by itself, not by the timeout');
    assert.equal(child.status, 0, child.stderr);
  });
});
