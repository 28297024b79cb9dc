import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { sqliteFileOf } from '../src/db/sqlite-file.js';
import { StoreFullError, StoreUnavailableError } from '../src/lib/errors.js';
import { countByStatus, startSendBurst } from './helpers/send-burst.js';
import { mailroomCommand, showServeOutputOfFailedTests, startServe } from './helpers/serve-process.js';
import { sendBody } from './helpers/test-app.js';
import { TEST_ADMIN_DATABASE_URL, TEST_STORE } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

/** The file system the store lives on: small, so that a burst fills what the filler leaves. */
const DISK_BYTES = 48 * 1024 * 1024;
const RECIPIENTS = ['ada@example.com', 'grace@example.com', 'edsger@example.com'];

/**
 * A tmpfs of its own, mounted for this test: a real file system whose end the store meets as it would
 * meet any full disk (ENOSPC: SQLite's SQLITE_FULL, PostgreSQL's disk_full), through the real send path
 * of a real `serve`. SQLite's PRAGMA max_page_count would give SQLITE_FULL too, but it is a setting of
 * each connection, and the send writer thread's connection is not the test's to set: a full file system
 * is what every connection (and PostgreSQL) meets alike. Mounting needs root, as the Postfix tests do.
 */
function mountSmallDisk(owner?: number): { dir: string; unmount(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-full-disk-'));
  const options = [`size=${DISK_BYTES}`, 'mode=0700', ...(owner === undefined ? [] : [`uid=${owner}`])].join(',');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`This test mounts a small tmpfs to fill, which needs root: ${(error as { stderr?: Buffer }).stderr?.toString().trim() ?? error}`);
  }
  return {
    dir,
    unmount() {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes `path` until the file system has no byte left for it. */
function fillTheDisk(path: string): void {
  const fd = openSync(path, 'w');
  try {
    for (const size of [1024 * 1024, 4096, 1]) {
      const chunk = Buffer.alloc(size, 0x61);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** A store on the small disk: its environment for serve, a way to read it, and its removal. */
interface StoreOnDisk {
  env: Record<string, string>;
  rows<T>(query: string): Promise<T[]>;
  close(): Promise<void>;
}

/** SQLite: the data dir on the disk. */
function sqliteOn(dir: string): StoreOnDisk {
  const env = { MAILROOM_DATA_DIR: join(dir, 'data') };
  let db: SQLite.Database | undefined;
  return {
    env,
    async rows<T>(query: string) {
      db ??= new SQLite(sqliteFileOf(env.MAILROOM_DATA_DIR), { readonly: true });
      return db.prepare(query).all() as T[];
    },
    async close() {
      db?.close();
    },
  };
}

/** PostgreSQL: a database of its own in a tablespace on the disk (the server's WAL stays where it is). */
async function postgresOn(dir: string, scratch: string): Promise<StoreOnDisk> {
  const name = `mailroom_full_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`create tablespace ${name} location '${dir}'`);
  await admin.query(`create database ${name} tablespace ${name}`);
  const url = new URL(TEST_ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  const env = { MAILROOM_DATA_DIR: scratch, DATABASE_URL: url.toString() };
  let db: pg.Client | undefined;
  return {
    env,
    async rows<T>(query: string) {
      if (!db) {
        db = new pg.Client({ connectionString: env.DATABASE_URL });
        await db.connect();
      }
      return (await db.query(query)).rows as T[];
    },
    async close() {
      await db?.end();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.query(`drop tablespace if exists ${name}`);
      await admin.end();
    },
  };
}

/** The uid PostgreSQL's server runs as: a tablespace's directory must be its. */
function postgresUid(): number {
  return Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
}

describe(`mailroom serve when the store's disk is full (${TEST_STORE})`, () => {
  showServeOutputOfFailedTests();
  const cleanups: (() => unknown)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('answers 503 with a sentence and Retry-After, writes no send by half, and takes sends again once space returns', async () => {
    const disk = mountSmallDisk(TEST_STORE === 'postgres' ? postgresUid() : undefined);
    cleanups.push(() => disk.unmount());
    const scratch = mkdtempSync(join(tmpdir(), 'mailroom-test-'));
    cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));
    const store = TEST_STORE === 'postgres' ? await postgresOn(disk.dir, scratch) : sqliteOn(disk.dir);
    cleanups.push(() => store.close());
    const env = { ...store.env, RATE_LIMIT_SEND_PER_MIN: '1000000', RATE_LIMIT_OTHER_PER_MIN: '1000000' };
    const server = await startServe(env);
    cleanups.push(() => server.stop());
    const created = mailroomCommand(['workspace', 'create', '--name', 'Full disk', '--json'], env);
    assert.equal(created.status, 0, created.stderr);
    const apiKey = JSON.parse(created.stdout).api_key as string;

    // A body of some size, so that the store's files must grow within a few hundred sends.
    const html = `<p>${'A line of a newsletter that takes some room. '.repeat(400)}</p>`;
    const filler = join(disk.dir, 'filler');
    fillTheDisk(filler);
    const burst = startSendBurst(server.base, apiKey, (n) => sendBody({ to: RECIPIENTS, subject: `Full ${n}`, html }), 4);
    await waitFor(() => burst.answers.filter((a) => a.status === 503).length >= 50, () => `the disk to fill: ${JSON.stringify(countByStatus(burst.answers))}`, {
      timeoutMs: 60_000,
    });
    await burst.stop();

    const counts = countByStatus(burst.answers);
    assert.deepEqual(Object.keys(counts).filter((status) => status !== '200' && status !== '503'), [], `only 200s and 503s: ${JSON.stringify(counts)}`);
    const full = new StoreFullError({ cause: null });
    const sentences = new Set([full.message, new StoreUnavailableError({ cause: null }).message]);
    const refusals = burst.answers.filter((a) => a.status === 503);
    for (const answer of refusals) {
      const body = answer.body as { success: boolean; error: string };
      assert.deepEqual(Object.keys(body), ['success', 'error']);
      assert.equal(body.success, false);
      assert.ok(sentences.has(body.error), body.error);
      assert.match(answer.retryAfter ?? '', /^\d+$/);
    }
    // Most meet the full disk itself; a write of SQLite's shared-memory index may meet it as an I/O error.
    const fullOnes = refusals.filter((a) => (a.body as { error: string }).error === full.message);
    assert.ok(fullOnes.length > 0, 'some refusals name the full disk');
    assert.ok(fullOnes.every((a) => a.retryAfter === String(full.retryAfterSeconds)));

    // Reads go on meanwhile, and the probes stay up: the store answers.
    const read = await fetch(`${server.base}/v1/send/logs?limit=1`, { headers: { 'x-api-key': apiKey } });
    assert.equal(read.status, 200);
    assert.equal((await fetch(`${server.base}/v1/health/check`)).status, 200);

    // Space returns: sends are taken again, without a restart.
    rmSync(filler);
    const last = await waitFor(
      async () => {
        const res = await fetch(`${server.base}/v1/send`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify(sendBody({ to: RECIPIENTS, subject: 'After' })),
        });
        return res.status === 200 ? ((await res.json()) as { data: { message_id: string } }).data.message_id : null;
      },
      'a send to succeed once space returned',
      { intervalMs: 200 },
    );

    // Exactly the sends answered 200, each whole: its message, a log entry per recipient, its delivery job.
    // A send refused 503 left nothing: its transaction rolled back.
    const accepted = [...burst.answers.filter((a) => a.status === 200).map((a) => a.messageId!), last];
    const messages = await store.rows<{ id: string }>('select id from messages');
    assert.deepEqual(new Set(messages.map((m) => m.id)), new Set(accepted));
    const partial = await store.rows(
      `select m.id from messages m
        where (select count(*) from log_entries l where l.message_id = m.id) <> ${RECIPIENTS.length}
           or (select count(*) from delivery_jobs j where j.message_id = m.id) <> 1`,
    );
    assert.deepEqual(partial, []);
    assert.deepEqual(await store.rows('select id from log_entries where message_id not in (select id from messages)'), []);
    if (TEST_STORE === 'sqlite') assert.deepEqual(await store.rows('pragma integrity_check'), [{ integrity_check: 'ok' }]);
    // The delivery thread, which met the full disk too, delivers them all.
    const delivered = async () => Number((await store.rows<{ n: number }>("select count(*) as n from log_entries where status = 'delivered'"))[0]!.n);
    const expected = accepted.length * RECIPIENTS.length;
    let seen = 0;
    await waitFor(async () => (seen = await delivered()) === expected, () => `every recipient delivered (${seen} of ${expected})`, { timeoutMs: 60_000, intervalMs: 200 });
    assert.doesNotMatch(server.output(), /the delivery thread exited/);
    process.stdout.write(`# disk full (${TEST_STORE}): ${JSON.stringify(counts)}, of the 503s ${fullOnes.length} naming the full disk\n`);
  });
});
