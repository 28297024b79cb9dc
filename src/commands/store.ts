import { loadConfig, type Config } from '../config.js';
import { createStore, openMigratedDatabase, createServices, type Services } from '../composition/index.js';
import type { Store } from '../db/store.js';
import { UsageError } from '../lib/usage-error.js';

/** This run's configuration: the environment, into which the entry point has read `.env`. */
export function cliConfig(): Config {
  return loadConfig(process.env);
}

/** Runs `work` over the services of the migrated store, then closes the store, whatever happened. */
export async function withServices<T>(work: (services: Services, store: Store) => Promise<T>): Promise<T> {
  const config = cliConfig();
  const db = await openMigratedDatabase(config);
  try {
    const store = createStore(db);
    return await work(createServices(store, config), store);
  } finally {
    await db.destroy();
  }
}

/** An option the command cannot do without; commander's own check would word it differently from what scripts already expect. */
export function required(value: string | undefined, flag: string): string {
  if (value === undefined) throw new UsageError(`${flag} is required`);
  return value;
}
