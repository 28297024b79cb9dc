import type { KeyObject } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { Type, type Static } from 'typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import type { InboundSettings, MetricsSettings, RetentionSettings, SesSettings, SubmissionSettings, WebhookSettings, WorkerSettings } from './lib/config-settings.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS, MAX_REQUEST_TIMEOUT_MS } from './http/server-limits.js';
import { ConfigError } from './lib/config-error.js';
import { parseDnsServers, parseDuration, parseList, parseSecretKey } from './lib/config-values.js';
import { parseTrustProxy, type TrustProxy } from './http/trust-proxy.js';

/** What MAILROOM_PROVIDER may name. */
export type ProviderKind = 'sandbox' | 'smtp' | 'ses';
import { DEFAULT_MAX_ATTEMPTS, DEFAULT_RETRY_BASE_MS, DEFAULT_RETRY_MAX_DELAY_MS, type RetryPolicy } from './delivery/retry-policy.js';

/**
 * Messages one worker has in hand at once. Well above the SMTP pool's
 * connections: while some messages are on the wire, others are being built,
 * signed and recorded (bench/delivery.ts: 16 left the connections idle).
 */
export const DEFAULT_WORKER_CONCURRENCY = 32;

/**
 * Every setting Mailroom reads, in one schema, read once at start-up.
 * A bad value stops the process with a message naming the variable.
 */
export const EnvSchema = Type.Object({
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HTTP_REQUEST_TIMEOUT_MS: Type.Integer({ minimum: HEADERS_TIMEOUT_MS, maximum: MAX_REQUEST_TIMEOUT_MS, default: DEFAULT_REQUEST_TIMEOUT_MS }),
  MAILROOM_DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  DATABASE_STATEMENT_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 30000 }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  REDIS_KEY_PREFIX: Type.String({ minLength: 1, default: 'mailroom:' }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  LOG_FORMAT: Type.Enum(['json', 'pretty'], { default: 'json' }),
  METRICS_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 0 }),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  // One provider, or an ordered list of them to fail over through (`ses,smtp`); checked below.
  MAILROOM_PROVIDER: Type.String({ pattern: '^\\s*(sandbox|smtp|ses)(\\s*,\\s*(sandbox|smtp|ses))*\\s*$', default: 'sandbox' }),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://[^/]' })),
  SMTP_SMTPUTF8: Type.Boolean({ default: false }),
  AWS_REGION: Type.Optional(Type.String({ pattern: '^[a-z]{2}(-[a-z]+)+-\\d+$' })),
  SES_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://[^/?#\\s]+/?$' })),
  SES_CONFIGURATION_SET: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  SES_MAX_SEND_RATE: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  SES_SNS_TOPIC_ARNS: Type.Optional(Type.String({ minLength: 1 })),
  SES_SNS_TRUSTED_HOSTS: Type.String({ minLength: 1, default: 'sns.*.amazonaws.com,sns.*.amazonaws.com.cn' }),
  SES_EVENT_TIMEOUT: Type.String({ pattern: '^\\d+(s|m|h|d)$', default: '48h' }),
  WORKER_ENABLED: Type.Boolean({ default: true }),
  WORKER_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 1000, default: DEFAULT_WORKER_CONCURRENCY }),
  WORKER_LEASE_MS: Type.Integer({ minimum: 1000, default: 60000 }),
  WORKER_POLL_MS: Type.Integer({ minimum: 10, default: 1000 }),
  WORKER_NICE: Type.Integer({ minimum: 0, maximum: 19, default: 10 }),
  DELIVERY_RETRY_BASE_MS: Type.Integer({ minimum: 1, default: DEFAULT_RETRY_BASE_MS }),
  DELIVERY_RETRY_MAX_DELAY_MS: Type.Integer({ minimum: 1, default: DEFAULT_RETRY_MAX_DELAY_MS }),
  DELIVERY_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 100, default: DEFAULT_MAX_ATTEMPTS }),
  INBOUND_SMTP_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 2525 }),
  INBOUND_SMTP_HOST: Type.Optional(Type.String({ minLength: 1 })),
  INBOUND_COMPLAINT_ADDRESS: Type.Optional(Type.String({ pattern: '^[^@\\s]+@[^@\\s]+$' })),
  SUBMISSION_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 587 }),
  SUBMISSION_TLS_CERT: Type.Optional(Type.String({ minLength: 1 })),
  SUBMISSION_TLS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  SUBMISSION_ALLOW_INSECURE_AUTH: Type.Boolean({ default: false }),
  DNS_SERVERS: Type.Optional(Type.String()),
  RATE_LIMIT_SEND_PER_MIN: Type.Integer({ minimum: 1, default: 30 }),
  RATE_LIMIT_OTHER_PER_MIN: Type.Integer({ minimum: 1, default: 60 }),
  RATE_LIMIT_RECIPIENTS_PER_MIN: Type.Integer({ minimum: 1, default: 3000 }),
  // Per client network: mailbox providers' image proxies fetch many readers' pixels from few addresses.
  RATE_LIMIT_TRACKING_PER_MIN: Type.Integer({ minimum: 1, default: 6000 }),
  MAILROOM_HOSTNAME: Type.Optional(Type.String({ minLength: 1 })),
  SPF_INCLUDE: Type.Optional(Type.String({ minLength: 1 })),
  TRUST_PROXY: Type.String({ minLength: 1, default: 'false' }),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^/?#\\s]+/?$' })),
  MAILROOM_SECRET_KEY: Type.Optional(Type.String()),
  WEBHOOK_ALLOW_PRIVATE: Type.Boolean({ default: false }),
  UPSTREAM_ALLOW_PRIVATE: Type.Boolean({ default: false }),
  UPSTREAM_DOWN_MS: Type.Integer({ minimum: 1000, default: 30_000 }),
  WEBHOOK_RETRY_BASE_MS: Type.Integer({ minimum: 1, default: 30_000 }),
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 1000, default: 10_000 }),
  CONTENT_RETENTION_DAYS: Type.Integer({ minimum: 0, maximum: 36500, default: 30 }),
  LOG_RETENTION_DAYS: Type.Integer({ minimum: 0, maximum: 36500, default: 90 }),
});

type Env = Static<typeof EnvSchema>;

export type * from './lib/config-settings.js';

const SECRET_VARIABLES = new Set(['DATABASE_URL', 'REDIS_URL', 'SMTP_URL', 'MAILROOM_SECRET_KEY', 'METRICS_TOKEN']);

export interface Config {
  host: string;
  port: number;
  /**
   * Longest an HTTP request may take to arrive, from its first byte to its body's last, a large send's
   * wait for its turn to be read included (http/server-limits.ts): past it, 408.
   */
  httpRequestTimeoutMs: number;
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
  /** `json` (one object per line, for machines) or `pretty` (pino-pretty, for people). */
  logFormat: Env['LOG_FORMAT'];
  metrics: MetricsSettings;
  /** The server's first provider: the one a send from a domain without upstreams of its own goes to first. */
  provider: ProviderKind;
  /** MAILROOM_PROVIDER's providers in the order a send fails over through them; `provider` is the first. */
  providers: ProviderKind[];
  /** `true` lets a workspace's SMTP upstream point to loopback, private and other non-public addresses. */
  upstreamAllowPrivate: boolean;
  /** How long the circuit breaker passes a failing upstream by before one attempt probes it (docs/upstreams.md#failover). */
  upstreamDownMs: number;
  /** The relay of the `smtp` provider; set whenever `provider` is `smtp`. */
  smtpUrl: string | undefined;
  /**
   * The operator's word that the relay takes SMTPUTF8 (RFC 6531), so addresses
   * with a non-ASCII local part are accepted with the `smtp` provider: whether
   * it does shows only at delivery, long after the 200.
   */
  smtpUtf8: boolean;
  /** The `ses` provider and the SNS endpoint that hears SES's events (docs/ses.md). */
  ses: SesSettings;
  worker: WorkerSettings;
  retry: RetryPolicy;
  inbound: InboundSettings;
  submission: SubmissionSettings;
  /** Resolvers for domain verification, as `ip` or `ip:port`; empty means the system's. */
  dnsServers: string[];
  /** Requests per key per minute (send and other), and recipients per workspace per minute across every way in. */
  rateLimits: { sendPerMinute: number; otherPerMinute: number; recipientsPerMinute: number; trackingPerMinute: number };
  /** Public host name of this installation: MX target of return-path domains and SPF `a:` host. */
  mailHostname: string;
  spfInclude: string | undefined;
  /** Which peers may tell Mailroom the client's address and scheme (X-Forwarded-For, -Proto, -Host). */
  trustProxy: TrustProxy;
  /**
   * PUBLIC_URL's origin (`https://mail.example.com`): where people reach the
   * dashboard. Its cookies are `Secure` when it is https, and state-changing
   * dashboard requests must come from it. Unset: the origin the request was
   * made to.
   */
  publicOrigin: string | undefined;
  /**
   * MAILROOM_SECRET_KEY: encrypts DKIM private keys, webhook signing secrets
   * and the return-path key at rest (secret-box.ts). Unset here, the runtime
   * takes the data dir's key file, made on the first start
   * (secrets/secret-key.ts). A KeyObject, so printing the config never shows it.
   */
  secretKey: KeyObject | undefined;
  webhooks: WebhookSettings;
  /**
   * How long a stop on SIGTERM/SIGINT may take, from the signal to the exit:
   * three quarters of it for deliveries and webhook posts in flight to finish,
   * the rest to give back what is still held and close the store.
   */
  shutdownGraceMs: number;
  retention: RetentionSettings;
}

export { ConfigError };

let envValidatorCompiled: ValidateFunction | undefined;

/**
 * The schema's check, converting the variables' strings to the integers and
 * booleans it names and filling in its defaults as it goes. Ajv rather than
 * TypeBox's Value module: the HTTP layer loads Ajv anyway, and Value's few
 * hundred modules were a tenth of every start (bench:start).
 */
function envValidator(): ValidateFunction {
  // validateSchema: false: EnvSchema is a constant of this code, so checking it against JSON Schema's
  // meta-schema (compiling that first) would spend some 30 ms of every start proving nothing new.
  envValidatorCompiled ??= new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, strict: false, validateSchema: false }).compile(EnvSchema);
  return envValidatorCompiled;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, string> = {};
  for (const name of Object.keys(EnvSchema.properties)) {
    const value = env[name];
    // An empty number is a template's slip (`PORT=$PORT` with nothing in it), not a wish for the default.
    if (value === '' && isInteger(name)) throw new ConfigError(`Invalid configuration: ${name} ${describe(name, 'is empty')} (got "")`);
    // Any other empty variable means "not set", as in most twelve-factor tools.
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const converted: Record<string, unknown> = { ...raw };
  const validate = envValidator();
  const firstError = validate(converted) ? undefined : validate.errors?.[0];
  if (firstError) {
    const name = firstError.instancePath.replace(/^\//, '');
    // URLs may carry a password: never echo them.
    const got = SECRET_VARIABLES.has(name) ? '' : ` (got ${JSON.stringify(raw[name])})`;
    throw new ConfigError(`Invalid configuration: ${name} ${describe(name, firstError.message ?? 'is invalid')}${got}`);
  }
  const parsed = converted as Env;
  const providers = parseList(parsed.MAILROOM_PROVIDER) as ProviderKind[];
  if (new Set(providers).size !== providers.length) throw new ConfigError(`Invalid configuration: MAILROOM_PROVIDER names a provider twice (got ${JSON.stringify(parsed.MAILROOM_PROVIDER)})`);
  if (providers.length > 1 && providers.includes('sandbox')) {
    throw new ConfigError(`Invalid configuration: MAILROOM_PROVIDER's sandbox keeps every message on this machine and cannot be in a list with upstreams (got ${JSON.stringify(parsed.MAILROOM_PROVIDER)})`);
  }
  if (providers.includes('smtp') && parsed.SMTP_URL === undefined) {
    throw new ConfigError(`Invalid configuration: SMTP_URL is required when MAILROOM_PROVIDER ${providers.length === 1 ? 'is smtp' : `names smtp (got ${JSON.stringify(parsed.MAILROOM_PROVIDER)})`}`);
  }
  if ((parsed.SUBMISSION_TLS_CERT === undefined) !== (parsed.SUBMISSION_TLS_KEY === undefined)) {
    const missing = parsed.SUBMISSION_TLS_CERT === undefined ? 'SUBMISSION_TLS_CERT' : 'SUBMISSION_TLS_KEY';
    throw new ConfigError(`Invalid configuration: ${missing} is required when ${missing === 'SUBMISSION_TLS_CERT' ? 'SUBMISSION_TLS_KEY' : 'SUBMISSION_TLS_CERT'} is set (give both, or neither for a self-signed certificate)`);
  }
  return {
    host: parsed.HOST,
    port: parsed.PORT,
    httpRequestTimeoutMs: parsed.HTTP_REQUEST_TIMEOUT_MS,
    dataDir: resolve(parsed.MAILROOM_DATA_DIR),
    databaseUrl: parsed.DATABASE_URL,
    databasePoolSize: parsed.DATABASE_POOL_SIZE,
    databaseStatementTimeoutMs: parsed.DATABASE_STATEMENT_TIMEOUT_MS,
    redisUrl: parsed.REDIS_URL,
    redisKeyPrefix: parsed.REDIS_KEY_PREFIX,
    logLevel: parsed.LOG_LEVEL,
    logFormat: parsed.LOG_FORMAT,
    metrics: { port: parsed.METRICS_PORT, token: parsed.METRICS_TOKEN },
    provider: providers[0]!,
    providers,
    upstreamAllowPrivate: parsed.UPSTREAM_ALLOW_PRIVATE,
    upstreamDownMs: parsed.UPSTREAM_DOWN_MS,
    smtpUrl: parsed.SMTP_URL,
    smtpUtf8: parsed.SMTP_SMTPUTF8,
    ses: {
      region: parsed.AWS_REGION,
      endpoint: parsed.SES_ENDPOINT,
      configurationSet: parsed.SES_CONFIGURATION_SET,
      maxSendRate: parsed.SES_MAX_SEND_RATE,
      snsTopicArns: parseList(parsed.SES_SNS_TOPIC_ARNS),
      snsTrustedHosts: parseList(parsed.SES_SNS_TRUSTED_HOSTS),
      eventTimeoutMs: parseDuration(parsed.SES_EVENT_TIMEOUT),
    },
    worker: {
      enabled: parsed.WORKER_ENABLED,
      concurrency: parsed.WORKER_CONCURRENCY,
      leaseMs: parsed.WORKER_LEASE_MS,
      pollMs: parsed.WORKER_POLL_MS,
      nice: parsed.WORKER_NICE,
    },
    inbound: {
      port: parsed.INBOUND_SMTP_PORT,
      host: parsed.INBOUND_SMTP_HOST ?? parsed.HOST,
      complaintAddress: (parsed.INBOUND_COMPLAINT_ADDRESS ?? `complaints@${parsed.MAILROOM_HOSTNAME ?? hostname()}`).toLowerCase(),
    },
    submission: {
      port: parsed.SUBMISSION_PORT,
      host: parsed.HOST,
      tlsCertPath: parsed.SUBMISSION_TLS_CERT === undefined ? undefined : resolve(parsed.SUBMISSION_TLS_CERT),
      tlsKeyPath: parsed.SUBMISSION_TLS_KEY === undefined ? undefined : resolve(parsed.SUBMISSION_TLS_KEY),
      allowInsecureAuth: parsed.SUBMISSION_ALLOW_INSECURE_AUTH,
      hostname: parsed.MAILROOM_HOSTNAME ?? hostname(),
    },
    retry: {
      baseMs: parsed.DELIVERY_RETRY_BASE_MS,
      maxDelayMs: parsed.DELIVERY_RETRY_MAX_DELAY_MS,
      maxAttempts: parsed.DELIVERY_MAX_ATTEMPTS,
    },
    dnsServers: parseDnsServers(parsed.DNS_SERVERS),
    rateLimits: { sendPerMinute: parsed.RATE_LIMIT_SEND_PER_MIN, otherPerMinute: parsed.RATE_LIMIT_OTHER_PER_MIN, recipientsPerMinute: parsed.RATE_LIMIT_RECIPIENTS_PER_MIN, trackingPerMinute: parsed.RATE_LIMIT_TRACKING_PER_MIN },
    mailHostname: parsed.MAILROOM_HOSTNAME ?? hostname(),
    spfInclude: parsed.SPF_INCLUDE,
    trustProxy: parseTrustProxy(parsed.TRUST_PROXY),
    publicOrigin: parsed.PUBLIC_URL === undefined ? undefined : new URL(parsed.PUBLIC_URL).origin,
    secretKey: parseSecretKey(parsed.MAILROOM_SECRET_KEY),
    webhooks: { allowPrivate: parsed.WEBHOOK_ALLOW_PRIVATE, retryBaseMs: parsed.WEBHOOK_RETRY_BASE_MS },
    shutdownGraceMs: parsed.SHUTDOWN_GRACE_MS,
    retention: { contentDays: parsed.CONTENT_RETENTION_DAYS, logDays: parsed.LOG_RETENTION_DAYS },
  };
}

function isInteger(name: string): boolean {
  const property = EnvSchema.properties[name as keyof Env];
  return 'type' in property && property.type === 'integer';
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
    if (name === 'INBOUND_COMPLAINT_ADDRESS') return 'must be an e-mail address';
    if (name === 'MAILROOM_PROVIDER') return 'must be one of sandbox, smtp, ses, or a comma-separated list of smtp and ses in the order to try them (ses,smtp)';
    const scheme = { DATABASE_URL: 'postgres://', REDIS_URL: 'redis://', SMTP_URL: 'smtp:// or smtps://' }[name];
    return `must be a ${scheme} URL`;
  }
  return schemaMessage;
}
