import { buildApp, type App } from './app.js';
import type { Config } from './config.js';
import { openDatabase, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import { createStore, type Store } from './repositories/index.js';
import { createThreadedSendWriter } from './repositories/threaded-send-writer.js';
import { createServices, type Services } from './services/index.js';

/** Opens the store and applies pending migrations: what every command that touches data needs first. */
export async function openMigratedDatabase(config: Config): Promise<Db> {
  const db = openDatabase(config);
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

/** Everything the API runs on: the migrated store, the send writer beside it, the services over both. */
export interface Runtime {
  db: Db;
  store: Store;
  services: Services;
  /** Once no request is in flight: stops the send writer, then closes the store. */
  close(): Promise<void>;
}

/** What `serve` runs on, and what the tests call into. */
export async function openRuntime(config: Config): Promise<Runtime> {
  const db = await openMigratedDatabase(config);
  const store = createStore(db);
  // Migrated first: the writer thread opens the same file and expects the schema in place.
  const sendWriter = createThreadedSendWriter(config.dataDir);
  return {
    db,
    store,
    services: createServices(store, config, { sendWriter }),
    async close() {
      await sendWriter.close();
      await db.destroy();
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
