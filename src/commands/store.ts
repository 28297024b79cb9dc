import { ConfigError, loadConfig, type Config } from '../config.js';
import { createStore, openMigratedDatabase, createServices, storeExists, type Services } from '../composition/index.js';
import { maskUrlPassword } from '../cli/config-report.js';
import { sqliteFileOf } from '../db/sqlite-file.js';
import type { Store } from '../db/store.js';
import { UsageError } from '../lib/usage-error.js';

/** This run's configuration: the environment, into which the entry point has read `.env`. */
export function cliConfig(): Config {
  return loadConfig(process.env);
}

/** The variable that chose the store: DATABASE_URL wins over MAILROOM_DATA_DIR when both are set. */
function storeVariable(config: Pick<Config, 'databaseUrl'>): 'DATABASE_URL' | 'MAILROOM_DATA_DIR' {
  return config.databaseUrl ? 'DATABASE_URL' : 'MAILROOM_DATA_DIR';
}

/** The store a configuration names, as the commands tell it: the SQLite file's absolute path, or DATABASE_URL without its password. */
export function storeName(config: Pick<Config, 'dataDir' | 'databaseUrl'>): string {
  const where = config.databaseUrl ? maskUrlPassword(config.databaseUrl) : sqliteFileOf(config.dataDir);
  return `${where} (${storeVariable(config)})`;
}

/** The one line on stderr that says which store a command works on: stdout stays the command's answer, for scripts. */
export function tellStore(config: Config, verb: 'using' | 'creating' = 'using'): void {
  process.stderr.write(`mailroom: ${verb} store ${storeName(config)}\n`);
}

/**
 * This run's configuration, for a command that works on the store a server made: the store is named on
 * stderr, or, when there is none, the command is refused and nothing is made. Without the refusal a
 * command run without the server's MAILROOM_DATA_DIR (or DATABASE_URL) would make a store of its own
 * and print, say, an API key the server has never heard of.
 */
export async function useExistingStore(): Promise<Config> {
  const config = cliConfig();
  if (!(await storeExists(config))) {
    throw new ConfigError(
      `There is no store at ${storeName(config)}, and this command does not make one: set ${storeVariable(config)} to the store the server uses, or make this one with mailroom migrate (or mailroom serve)`,
    );
  }
  tellStore(config, 'using');
  return config;
}

/** This run's configuration, for `migrate` and `serve`, which make the store when there is none: named on stderr, said to be new. */
export async function useOrCreateStore(): Promise<Config> {
  const config = cliConfig();
  tellStore(config, (await storeExists(config)) ? 'using' : 'creating');
  return config;
}

/** Runs `work` over the services of the existing store (pending migrations applied), then closes the store, whatever happened. */
export async function withServices<T>(work: (services: Services, store: Store) => Promise<T>): Promise<T> {
  const config = await useExistingStore();
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
