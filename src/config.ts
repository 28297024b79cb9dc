import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';

/**
 * Every setting Mailroom reads, in one schema, read once at start-up.
 * A bad value stops the process with a message naming the variable.
 */
const EnvSchema = Type.Object({
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  MAILROOM_DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  DATABASE_STATEMENT_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 30000 }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  REDIS_KEY_PREFIX: Type.String({ minLength: 1, default: 'mailroom:' }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  MAILROOM_PROVIDER: Type.Enum(['sandbox'], { default: 'sandbox' }),
  DNS_SERVERS: Type.Optional(Type.String()),
  RATE_LIMIT_SEND_PER_MIN: Type.Integer({ minimum: 1, default: 30 }),
  RATE_LIMIT_OTHER_PER_MIN: Type.Integer({ minimum: 1, default: 60 }),
  MAILROOM_HOSTNAME: Type.Optional(Type.String({ minLength: 1 })),
  SPF_INCLUDE: Type.Optional(Type.String({ minLength: 1 })),
  TRUST_PROXY: Type.Boolean({ default: false }),
});

type Env = Static<typeof EnvSchema>;

const SECRET_VARIABLES = new Set(['DATABASE_URL', 'REDIS_URL']);

export interface Config {
  host: string;
  port: number;
  /** Where the embedded SQLite store lives; unused when `databaseUrl` is set. */
  dataDir: string;
  /** PostgreSQL instead of the embedded store, when set. */
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** Longest a PostgreSQL statement may run; 0 for no bound. */
  databaseStatementTimeoutMs: number;
  /** Rate-limit counters in Redis (shared by every process) instead of this process's memory, when set. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  logLevel: Env['LOG_LEVEL'];
  provider: Env['MAILROOM_PROVIDER'];
  /** Resolvers for domain verification, as `ip` or `ip:port`; empty means the system's. */
  dnsServers: string[];
  rateLimits: { sendPerMinute: number; otherPerMinute: number };
  /** Public host name of this installation: MX target of return-path domains and SPF `a:` host. */
  mailHostname: string;
  spfInclude: string | undefined;
  trustProxy: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, string> = {};
  for (const name of Object.keys(EnvSchema.properties)) {
    const value = env[name];
    // An empty variable means "not set", as in most twelve-factor tools.
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const converted = Value.Default(EnvSchema, Value.Convert(EnvSchema, { ...raw }));
  const firstError = Value.Errors(EnvSchema, converted)[0];
  if (firstError) {
    const name = firstError.instancePath.replace(/^\//, '');
    // URLs may carry a password: never echo them.
    const got = SECRET_VARIABLES.has(name) ? '' : ` (got ${JSON.stringify(raw[name])})`;
    throw new ConfigError(`Invalid configuration: ${name} ${describe(name, firstError.message)}${got}`);
  }
  const parsed = converted as Env;
  return {
    host: parsed.HOST,
    port: parsed.PORT,
    dataDir: resolve(parsed.MAILROOM_DATA_DIR),
    databaseUrl: parsed.DATABASE_URL,
    databasePoolSize: parsed.DATABASE_POOL_SIZE,
    databaseStatementTimeoutMs: parsed.DATABASE_STATEMENT_TIMEOUT_MS,
    redisUrl: parsed.REDIS_URL,
    redisKeyPrefix: parsed.REDIS_KEY_PREFIX,
    logLevel: parsed.LOG_LEVEL,
    provider: parsed.MAILROOM_PROVIDER,
    dnsServers: parseDnsServers(parsed.DNS_SERVERS),
    rateLimits: { sendPerMinute: parsed.RATE_LIMIT_SEND_PER_MIN, otherPerMinute: parsed.RATE_LIMIT_OTHER_PER_MIN },
    mailHostname: parsed.MAILROOM_HOSTNAME ?? hostname(),
    spfInclude: parsed.SPF_INCLUDE,
    trustProxy: parsed.TRUST_PROXY,
  };
}

function describe(name: string, schemaMessage: string): string {
  const property = EnvSchema.properties[name as keyof Env];
  if (property && 'enum' in property) return `must be one of ${(property.enum as string[]).join(', ')}`;
  if (property && 'type' in property && property.type === 'boolean') return 'must be true or false';
  if (property && 'type' in property && property.type === 'integer') {
    const { minimum, maximum } = property as { minimum?: number; maximum?: number };
    return `must be an integer${maximum !== undefined ? ` from ${minimum} to ${maximum}` : minimum !== undefined ? ` of at least ${minimum}` : ''}`;
  }
  if (property && 'pattern' in property) {
    const scheme = name === 'DATABASE_URL' ? 'postgres://' : 'redis://';
    return `must be a ${scheme} URL`;
  }
  return schemaMessage;
}

/** Accepts `1.2.3.4`, `1.2.3.4:5353`, `::1` and `[::1]:5353`, comma-separated. */
function parseDnsServers(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(',').map((entry) => {
    const server = entry.trim();
    const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([^:]+)(?::(\d+))?$/.exec(server);
    const ip = match ? match[1]! : server;
    const port = match?.[2];
    const portOk = port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
    if (isIP(ip) === 0 || !portOk) {
      throw new ConfigError(
        `Invalid configuration: DNS_SERVERS must be a comma-separated list of ip or ip:port entries (got ${JSON.stringify(server)})`,
      );
    }
    return server;
  });
}
