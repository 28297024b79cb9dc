import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { StoreKind } from '../../src/db/database.js';

/** The store this test run exercises: `npm test` runs the suite once per store (scripts/run-tests.ts). */
export const TEST_STORE: StoreKind = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** A PostgreSQL database the tests may create databases from; scripts/run-tests.ts checks it first. */
export const TEST_ADMIN_DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/** Redis for the rate-limit tests, or undefined when the runner found none (a local run without it). */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL === undefined ? 'redis://127.0.0.1:6379' : process.env.TEST_REDIS_URL || undefined;

/** Where rate-limit tests keep their counters: this process's memory and, when the run has Redis, Redis. */
export const COUNTER_STORES = TEST_REDIS_URL ? (['memory', 'redis'] as const) : (['memory'] as const);

/** A key prefix of its own in the shared Redis, for one test's counters (REDIS_KEY_PREFIX). */
export function freshRedisPrefix(): string {
  return `mailroom-test:${process.pid}:${randomBytes(6).toString('hex')}:`;
}

/** Removes a test's counters (every key under `prefix`) from the shared Redis. */
export async function deleteRedisKeys(prefix: string): Promise<void> {
  // Loaded here only: every test imports this file, and most never touch Redis.
  const { Redis } = await import('ioredis');
  const redis = new Redis(TEST_REDIS_URL!);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

/** Fresh counters of a kind: the environment that selects them (in Redis, under a key prefix of their own) and their removal. */
export function freshCounters(kind: (typeof COUNTER_STORES)[number]): { env: Record<string, string>; drop(): Promise<void> } {
  if (kind === 'memory') return { env: {}, drop: async () => {} };
  const prefix = freshRedisPrefix();
  return { env: { REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix }, drop: () => deleteRedisKeys(prefix) };
}

export interface FreshStore {
  /** Environment that points Mailroom at the store (MAILROOM_DATA_DIR, and DATABASE_URL on PostgreSQL). */
  env: Record<string, string>;
  /** The temporary directory: the SQLite file's home, and scratch space on PostgreSQL too. */
  dataDir: string;
  /** Removes the store: the directory, and the database on PostgreSQL. */
  drop(): Promise<void>;
}

/** Runs `work` on a connection to the administrative database (TEST_ADMIN_DATABASE_URL), outside any test database. */
export async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A new store of the given kind with Mailroom's tables made, as `mailroom migrate` or a first `serve` makes
 * them: what the commands that work on an existing store need (they refuse an empty data dir).
 */
export async function migratedStore(kind: StoreKind = TEST_STORE): Promise<FreshStore> {
  const store = await freshStore(kind);
  // Loaded here only: every test imports this file.
  const [{ openMigratedDatabase }, { loadConfig }] = await Promise.all([import('../../src/composition/store-runtime.js'), import('../../src/config.js')]);
  const db = await openMigratedDatabase(loadConfig({ ...store.env, LOG_LEVEL: 'silent' }));
  await db.destroy();
  return store;
}

/** A new, empty store of the given kind, of its own: a temp dir, and on PostgreSQL a database created for it. */
export async function freshStore(kind: StoreKind = TEST_STORE): Promise<FreshStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-test-'));
  if (kind === 'sqlite') {
    return { env: { MAILROOM_DATA_DIR: dataDir }, dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `mailroom_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  const drop = () => admin((client) => client.query(`drop database if exists ${name} with (force)`));
  await admin((client) => client.query(`create database ${name}`));
  const url = new URL(TEST_ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    env: { MAILROOM_DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    dataDir,
    async drop() {
      // FORCE ends connections a failed test may have left open.
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
