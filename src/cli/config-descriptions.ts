import type { EnvSchema } from '../config.js';

/** A variable EnvSchema declares: every name loadConfig reads. */
export type ConfigVariable = keyof (typeof EnvSchema)['properties'];

export interface ConfigDescription {
  /** The default in words, where the schema has none to show (a value derived at start-up, or nothing). */
  default?: string;
  /** What the variable does, as Markdown for docs/configuration.md (links relative to docs/). */
  meaning: string;
}

/**
 * What each configuration variable does, for people: docs/configuration.md's
 * table is generated from this and EnvSchema (`npm run docs:config`), and
 * test/config-docs.test.ts fails when the two drift apart. Typed by the
 * schema's names, so a variable added to EnvSchema without a line here does
 * not compile.
 */
export const CONFIG_DESCRIPTIONS: Record<ConfigVariable, ConfigDescription> = {
  HOST: { meaning: 'address the API listens on' },
  PORT: { meaning: 'port the API listens on (`0`: any free port; empty is refused)' },
  HTTP_REQUEST_TIMEOUT_MS: {
    meaning:
      "longest an HTTP request may take to arrive, from its first byte to its body's last, a large send's wait for its turn to be read included: then 408. Ten minutes carry a 70 MiB send at 1 Mbit/s. From 10000, the headers' own timeout, to 86400000 (a day) ([HTTP timeouts and limits](operations.md#http-timeouts-and-limits))",
  },
  MAILROOM_DATA_DIR: { meaning: 'where the embedded store lives (`mailroom.db`, SQLite in WAL mode), and its key file `secret.key`' },
  DATABASE_URL: { meaning: '`postgres://…`: use this PostgreSQL database instead of the embedded store ([Scaling out](operations.md#scaling-out-postgresql-and-redis))' },
  DATABASE_POOL_SIZE: { meaning: 'PostgreSQL connections per process (1–1000)' },
  DATABASE_STATEMENT_TIMEOUT_MS: { meaning: 'longest a PostgreSQL statement may run; `0` for no bound' },
  REDIS_URL: { meaning: '`redis://…` (or `rediss://`): keep rate-limit counters in Redis, shared by every process' },
  REDIS_KEY_PREFIX: { meaning: 'prefix of every key Mailroom writes to Redis, to share one Redis between installations' },
  LOG_LEVEL: { meaning: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`' },
  LOG_FORMAT: {
    meaning: '`json`: one JSON object per line; `pretty`: readable lines for people (pino-pretty, a development dependency) ([Logs](monitoring.md#logs))',
  },
  METRICS_PORT: { meaning: '`GET /metrics` on a listener of its own, on `HOST` (`serve` and `worker`); `0`: none ([Monitoring](monitoring.md))' },
  METRICS_TOKEN: { meaning: 'a Bearer token (16 characters or more) that `GET /metrics` asks for; when set, `/metrics` is also served on `PORT`. Never printed' },
  MAILROOM_PROVIDER: {
    meaning:
      'upstream provider: `sandbox` keeps every message on this machine, `smtp` relays through `SMTP_URL`, `ses` sends through Amazon SES; or an ordered list of `smtp` and `ses` (`ses,smtp`) that a send fails over through ([Providers](delivery.md#providers), [Amazon SES](ses.md), [Upstreams](upstreams.md))',
  },
  SMTP_URL: { meaning: 'the relay of the `smtp` provider (required with it): `smtp://user:pass@host:587` or `smtps://…`; never printed' },
  SMTP_SMTPUTF8: {
    meaning:
      '`true`: the relay takes SMTPUTF8 (RFC 6531), so addresses with a non-ASCII local part are accepted with the `smtp` provider (see [Send fields](sending.md#send-fields))',
  },
  AWS_REGION: { default: "the AWS SDK's chain (`AWS_DEFAULT_REGION`, the profile's region)", meaning: 'the AWS region of the `ses` provider, e.g. `eu-west-1`. Credentials come from the standard AWS chain: `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE`, an instance or task role ([Amazon SES](ses.md))' },
  SES_ENDPOINT: { meaning: "another endpoint than AWS's for the `ses` provider: an SES-compatible service, or a local emulator ([Try it locally](ses.md#try-it-locally))" },
  SES_CONFIGURATION_SET: { meaning: 'the configuration set named on every send through SES; its SNS event destination is how Mailroom hears of deliveries, bounces and complaints ([Amazon SES](ses.md))' },
  SES_MAX_SEND_RATE: { default: "the account's `MaxSendRate`, read at start and every 10 minutes", meaning: 'sends per second through SES, across every worker process on the store ([The sending rate](ses.md#the-sending-rate))' },
  SES_SNS_TOPIC_ARNS: { default: 'none: every notification is refused', meaning: 'comma-separated SNS topic ARNs whose notifications `POST /v1/inbound/ses` uses (see [SES notifications](ses-notifications.md))' },
  SES_SNS_TRUSTED_HOSTS: { meaning: "comma-separated host patterns (`*` stands for one label; `host:port` allowed) an SNS notification's `SigningCertURL` and `SubscribeURL` must be on, over https" },
  SES_EVENT_TIMEOUT: { meaning: 'how long a recipient handed to SES may go without an event from it (`90s`, `30m`, `48h`, `2d`) before its message says "no event from SES yet" and `mailroom_ses_events_overdue` counts it' },
  WORKER_ENABLED: { meaning: '`serve` runs the delivery worker too; `false` for API-only processes (run `mailroom worker` elsewhere)' },
  WORKER_CONCURRENCY: { meaning: 'messages one worker hands over at once' },
  WORKER_LEASE_MS: { meaning: 'how long a claimed message stays a worker\'s without renewal: a dead worker\'s messages are taken over after it' },
  WORKER_POLL_MS: { meaning: 'how often an idle worker looks for due messages (sends accepted by the same `serve` wake it at once)' },
  WORKER_NICE: {
    meaning: "`serve` runs its delivery worker on a thread of its own at this nice value (0–19; 0 is the API's priority; Linux): under a burst, accepting sends gets the CPU first",
  },
  DELIVERY_RETRY_BASE_MS: { meaning: 'first wait before retrying a temporary failure; doubles per attempt' },
  DELIVERY_RETRY_MAX_DELAY_MS: { meaning: 'longest wait between two attempts' },
  DELIVERY_MAX_ATTEMPTS: { meaning: 'attempts in all (1–100) before a temporary failure becomes `failed`' },
  INBOUND_SMTP_PORT: { meaning: 'port of the inbound SMTP receiver (bounces, delivery reports, complaints); `0`: none in this process ([Inbound](inbound.md))' },
  INBOUND_SMTP_HOST: { default: '`HOST`', meaning: 'address the inbound receiver listens on (`0.0.0.0` to take mail from the Internet)' },
  INBOUND_COMPLAINT_ADDRESS: { default: '`complaints@MAILROOM_HOSTNAME`', meaning: 'the address feedback loops send complaint reports to' },
  SUBMISSION_PORT: { meaning: 'port of the SMTP submission server ([SMTP](smtp.md)); `0`: none in this process. Listens on `HOST`' },
  SUBMISSION_TLS_CERT: {
    meaning: 'PEM file of the STARTTLS certificate, read at start (with `SUBMISSION_TLS_KEY`: both or neither); unset: a self-signed certificate for `MAILROOM_HOSTNAME`, with a warning',
  },
  SUBMISSION_TLS_KEY: { meaning: "PEM file of the STARTTLS certificate's private key, read at start (with `SUBMISSION_TLS_CERT`: both or neither)" },
  SUBMISSION_ALLOW_INSECURE_AUTH: { meaning: '`true` takes AUTH before STARTTLS (the API key then crosses the network in clear)' },
  DNS_SERVERS: { default: 'system resolvers', meaning: 'comma-separated `ip` or `ip:port` (`[ipv6]:port`) used for domain verification' },
  RATE_LIMIT_SEND_PER_MIN: { meaning: '`POST /v1/send` requests per key per minute (`POST /v1/send/batch` is one request)' },
  RATE_LIMIT_OTHER_PER_MIN: { meaning: 'other requests per key (or per client address without a key, an IPv6 client by its /64) per minute' },
  RATE_LIMIT_RECIPIENTS_PER_MIN: {
    meaning:
      "recipients (`to`, `cc`, `bcc`) per workspace per minute, over all its keys, batches, the Resend-compatible API, SMTP submission and the dashboard's test send (a positive integer; see [Recipients per workspace](api.md#recipients-per-workspace))",
  },
  RATE_LIMIT_TRACKING_PER_MIN: {
    meaning:
      "requests for tracked addresses (the open pixel, tracked links) per client network per minute; over it an open is answered and not recorded, a click answers 429 (a positive integer; see [Tracking](tracking.md#load-and-limits))",
  },
  MAILROOM_HOSTNAME: {
    default: "the machine's host name",
    meaning: "public name of this installation: the return path's MX target and the SPF `a:` host; when it is not a name public DNS can use, start-up logs a warning and the dashboard's Domains page shows one ([Reverse DNS and the host name](operations.md#reverse-dns-and-the-host-name))",
  },
  SPF_INCLUDE: { meaning: "an `include:` to add to the suggested SPF records (your relay's or provider's)" },
  TRUST_PROXY: {
    meaning:
      "the reverse proxies whose `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host` Mailroom believes: a comma-separated list of their addresses and CIDR ranges (`127.0.0.1` for nginx or Caddy on this machine; `10.0.0.0/8,::1`; also `loopback`, `linklocal`, `uniquelocal`), the client being the rightmost `X-Forwarded-For` entry that is not one of them; or a number of proxies (`1`), the client being that many entries from the right, from whoever connects (only where nothing but the proxies can reach Mailroom). `false`: the connection's own address. `true` is refused at start: every entry would be believed, the leftmost one written by the client, so any client could choose its address and with it its rate limits and sign-in lock-out. See [TLS: Caddy or nginx in front](operations.md#tls-caddy-or-nginx-in-front)",
  },
  PUBLIC_URL: {
    meaning:
      'the address people reach the dashboard at, e.g. `https://mail.example.com`: its cookies are `Secure` when it is https (as they are whenever a request came over https, directly or as a `TRUST_PROXY` proxy reports in `X-Forwarded-Proto`), and its state-changing requests must come from that origin (unset: the origin each request was made to)',
  },
  MAILROOM_SECRET_KEY: {
    meaning:
      '32 bytes, as 64 hex digits or base64 (`openssl rand -base64 32`): DKIM private keys, webhook secrets, the passwords and secret access keys of upstreams, and the return-path key are stored encrypted with it (AES-256-GCM); unset, the key is `$MAILROOM_DATA_DIR/secret.key`, made on the first start. Keep it: secrets stored under it cannot be read without it. Never printed ([Secrets at rest](secrets-and-backups.md#secrets-at-rest))',
  },
  WEBHOOK_ALLOW_PRIVATE: {
    meaning: '`true` lets webhook URLs point to loopback, private, link-local and other non-public addresses (tests, closed networks)',
  },
  UPSTREAM_ALLOW_PRIVATE: {
    meaning: "`true` lets a workspace's SMTP upstream (and an SES upstream's `endpoint`) point to loopback, private, link-local and other non-public addresses (tests, closed networks) ([Upstreams](upstreams.md))",
  },
  UPSTREAM_DOWN_MS: {
    meaning: 'how long an upstream the circuit breaker took down (5 failures of its own within a minute) is passed by, its sends failing over to the next upstream of their route, before one attempt probes it ([Upstreams](upstreams.md))',
  },
  WEBHOOK_RETRY_BASE_MS: {
    meaning: 'first wait before re-posting a webhook that failed; then twice and four times that (plus up to a quarter at random), three retries in all ([Webhooks](events-and-webhooks.md))',
  },
  SHUTDOWN_GRACE_MS: { meaning: 'longest a stop on SIGTERM or SIGINT takes, from the signal to the exit (at least 1000); see [Stopping](operations.md#stopping)' },
  CONTENT_RETENTION_DAYS: { meaning: "days a message's bodies, attachments and MIME as sent are kept; `0`: for ever (see [Retention](message-history.md#retention))" },
  LOG_RETENTION_DAYS: { meaning: 'days a message, its log entries, events, attempts and webhook deliveries are kept; `0`: for ever' },
};
