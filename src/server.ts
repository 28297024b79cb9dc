import { buildApp, type App } from './app.js';
import type { Config } from './config.js';
import { openDatabase, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import { createStore } from './repositories/index.js';
import { createServices } from './services/index.js';

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

/** `mailroom serve`: the API on HOST:PORT until `close()`, which drains in-flight requests, then closes the store. */
export async function startServer(config: Config): Promise<App> {
  const db = await openMigratedDatabase(config);
  const app = await buildApp({ config, services: createServices(createStore(db), config) });
  app.addHook('onClose', async () => {
    await db.destroy();
  });
  await app.listen({ host: config.host, port: config.port });
  return app;
}
