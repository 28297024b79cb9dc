import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { openDatabase, pingDatabase, sqliteFileOf, storeKindOf, UnreachableError, type Db, type SqliteOptions } from '../db/database.js';
import { holdsMigrations, migrateToLatest } from '../db/migrator.js';
import { storeCauseOf } from '../db/store-failure.js';
import { loadReturnPathKeys, createReturnPathSigner, type ReturnPathSigner } from '../inbound/index.js';
import { createLogger as createConfiguredLogger } from '../observability/index.js';
import type { Store } from '../db/store.js';
import { openSecretKey } from '../secrets/index.js';
import { deriveTrackingKey } from '../tracking/index.js';

// What every process (and serve's delivery thread) opens first: the store, the installation's secret key, the
// return-path keys. Apart from server.ts so that the delivery thread's bundle holds no HTTP layer.

/** Opens the store the configuration names and checks that it answers. */
export async function openReachableDatabase(config: Config, sqliteOptions: SqliteOptions = {}): Promise<Db> {
  const db = openDatabase(config, sqliteOptions);
  if (storeKindOf(config) === 'postgres') {
    // Named plainly, and without the URL (it may carry a password).
    await pingDatabase(db).catch(async (error: unknown) => {
      await db.destroy();
      // The driver's own words (ECONNREFUSED, a refused password …), not the sentence a request would answer.
      const cause = storeCauseOf(error);
      throw new UnreachableError(`Cannot reach PostgreSQL at DATABASE_URL: ${cause instanceof Error ? cause.message : String(cause)}`);
    });
  }
  return db;
}

/**
 * Whether the store the configuration names is there (a first start or `mailroom migrate` made it), found
 * without making it: the SQLite file in the data dir, or Mailroom's tables in DATABASE_URL's database.
 */
export async function storeExists(config: Config): Promise<boolean> {
  if (storeKindOf(config) === 'sqlite') return existsSync(sqliteFileOf(config.dataDir));
  const db = await openReachableDatabase(config);
  try {
    return await holdsMigrations(db);
  } finally {
    await db.destroy();
  }
}

/** Opens the store and applies pending migrations: what every command that touches data needs first. */
export async function openMigratedDatabase(config: Config, sqliteOptions: SqliteOptions = {}): Promise<Db> {
  const db = await openReachableDatabase(config, sqliteOptions);
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

/** The log of everything but HTTP requests (Fastify keeps its own): the worker's, in `serve` and `worker`. */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>): Logger {
  return createConfiguredLogger(config);
}

/** What signs for the installation: return paths, and tracked addresses with a key derived from the return-path key. */
export interface SigningKeys {
  returnPaths: ReturnPathSigner;
  trackingKey: Buffer;
}

/** The installation's signing keys (the return-path key made by the first process to need one, kept sealed in the store). */
export async function openSigningKeys(store: Store, config: Pick<Config, 'secretKey'>): Promise<SigningKeys> {
  if (!config.secretKey) throw new Error('The secret key is opened (withSecretKey) before the return paths');
  const keys = await loadReturnPathKeys(store, config.secretKey);
  return { returnPaths: createReturnPathSigner(keys), trackingKey: deriveTrackingKey(keys[0]!) };
}

/**
 * The configuration with the installation's key, checked against the store
 * (secrets/secret-key.ts: a wrong key stops the start), the secrets stored
 * in clear by older versions sealed. A key made now is announced once, as
 * it must be backed up.
 */
export async function withSecretKey(store: Store, config: Config, log: Logger): Promise<Config> {
  const secretKey = await openSecretKey(store, config);
  if (secretKey.created) {
    const shared = storeKindOf(config) === 'postgres' ? '; every process on this DATABASE_URL needs it: give them MAILROOM_SECRET_KEY with its contents' : '';
    log.warn(
      `Made a secret key at ${secretKey.source}: DKIM private keys and webhook secrets are encrypted with it. Back it up with the store (mailroom backup copies both); without it they cannot be read${shared}`,
    );
  }
  return { ...config, secretKey: secretKey.key };
}
