import { EnvSchema, loadConfig, type Config } from '../config.js';

/** Where a setting's value came from. */
export type SettingSource = 'environment' | '.env' | 'default' | 'unset';

export interface EffectiveSetting {
  name: string;
  /** The value Mailroom runs with, secrets masked; null when unset and nothing stands in for it. */
  value: string | null;
  source: SettingSource;
}

const MASK = '********';
/** Variables whose whole value is a secret (MAILROOM_SECRET_KEY, METRICS_TOKEN, …): shown as a mask whatever they hold. */
const SECRET_NAME = /SECRET|TOKEN|PASSWORD/;

/**
 * A URL with its password replaced by the mask (`postgres://mailroom:********@db/mailroom`), a password
 * given as a parameter too (`?password=…`, `&sslpassword=…`, as libpq reads them); anything else as it is.
 */
export function maskUrlPassword(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/[^:@/\s]*:)[^@/\s]+@/gi, `$1${MASK}@`).replace(/([?&](?:ssl)?password=)[^&#\s]+/gi, `$1${MASK}`);
}

/** A value as `mailroom config` may show it: a secret never, a URL without its password. */
export function maskedValue(name: string, value: string): string {
  if (SECRET_NAME.test(name)) return MASK;
  return maskUrlPassword(value);
}

/** Values Mailroom derives when a variable is unset, as loadConfig resolved them (the resolved data dir, the machine's host name, …). */
function derivedValues(config: Config): Record<string, string> {
  return {
    MAILROOM_DATA_DIR: config.dataDir,
    MAILROOM_HOSTNAME: config.mailHostname,
    INBOUND_SMTP_HOST: config.inbound.host,
    INBOUND_COMPLAINT_ADDRESS: config.inbound.complaintAddress,
  };
}

/**
 * Every setting of the configuration schema with the value Mailroom runs with
 * and where it came from, secrets masked: what `mailroom config` prints.
 * Validates as start-up does, so a bad value throws the same ConfigError.
 * `fromEnvFile` names the variables the `.env` file supplied.
 */
export function effectiveSettings(env: NodeJS.ProcessEnv, fromEnvFile: ReadonlySet<string> = new Set()): EffectiveSetting[] {
  const derived = derivedValues(loadConfig(env));
  return Object.entries(EnvSchema.properties).map(([name, schema]) => {
    const given = env[name];
    if (given !== undefined && given !== '') {
      const value = name in derived ? derived[name]! : given;
      return { name, value: maskedValue(name, value), source: fromEnvFile.has(name) ? '.env' : 'environment' };
    }
    const fallback = derived[name] ?? ('default' in schema ? String(schema.default) : undefined);
    return fallback === undefined ? { name, value: null, source: 'unset' } : { name, value: maskedValue(name, fallback), source: 'default' };
  });
}

/** The settings as `NAME=value  # source` lines, aligned: a file `.env` could take, with where each value came from. */
export function formatSettings(settings: EffectiveSetting[]): string {
  const lines = settings.map((s) => `${s.name}=${s.value ?? ''}`);
  const width = Math.max(...lines.map((line) => line.length));
  return settings.map((s, i) => `${lines[i]!.padEnd(width)}  # ${s.source}\n`).join('');
}
