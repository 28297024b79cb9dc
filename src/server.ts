import { buildApp, type App } from './app.js';
import type { Config } from './config.js';
import { openDatabase, pingDatabase, storeKindOf, UnreachableError, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import { connectRedis } from './db/redis.js';
import { createAcceptedSendWriter } from './repositories/accepted-send-writer.js';
import { createStore, type Store } from './repositories/index.js';
import { createThreadedSendWriter } from './repositories/threaded-send-writer.js';
import { createServices, type Services } from './services/index.js';
import { createMemoryRateLimiter, createRedisRateLimiter } from './services/rate-limiter.js';

/** Opens the store the configuration names and checks that it answers. */
export async function openReachableDatabase(config: Config): Promise<Db> {
  const db = openDatabase(config);
  if (storeKindOf(config) === 'postgres') {
    // Named plainly, and without the URL (it may carry a password).
    await pingDatabase(db).catch(async (error: Error) => {
      await db.destroy();
      throw new UnreachableError(`Cannot reach PostgreSQL at DATABASE_URL: ${error.message}`);
    });
  }
  return db;
}

/** Opens the store and applies pending migrations: what every command that touches data needs first. */
export async function openMigratedDatabase(config: Config): Promise<Db> {
  const db = await openReachableDatabase(config);
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

/** Everything the API runs on: the migrated store, the send writer and Redis beside it, the services over them. */
export interface Runtime {
  db: Db;
  store: Store;
  services: Services;
  /** Once no request is in flight: stops the send writer, then closes the store (its pool) and Redis. */
  close(): Promise<void>;
}

/** What `serve` runs on, and what the tests call into. */
export async function openRuntime(config: Config): Promise<Runtime> {
  const db = await openMigratedDatabase(config);
  const store = createStore(db);
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl).catch(async (error: unknown) => {
        await db.destroy();
        throw error;
      })
    : undefined;
  // SQLite works on the calling thread, so its send writes get a thread of their own (migrated
  // first: that thread opens the same file and expects the schema); PostgreSQL works in its own
  // processes, and the batching writer on this thread suffices.
  const sendWriter = storeKindOf(config) === 'sqlite' ? createThreadedSendWriter(config.dataDir) : createAcceptedSendWriter(store);
  const services = createServices(store, config, {
    sendWriter,
    rateLimiter: redis ? createRedisRateLimiter(redis, config.redisKeyPrefix) : createMemoryRateLimiter(),
    healthChecks: redis ? { redis: () => redis.ping() } : {},
  });
  return {
    db,
    store,
    services,
    async close() {
      await sendWriter.close();
      await db.destroy();
      redis?.disconnect();
    },
  };
}

/** `mailroom serve`: the API on HOST:PORT until `close()`, which drains in-flight requests, then closes the store. */
export async function startServer(config: Config): Promise<App> {
  const runtime = await openRuntime(config);
  try {
    const app = await buildApp({ config, services: runtime.services });
    app.addHook('onClose', () => runtime.close());
    await app.listen({ host: config.host, port: config.port });
    return app;
  } catch (error) {
    await runtime.close();
    throw error;
  }
}
