/** The grouped settings of `Config` (config.ts), each read from the variables named in its fields. */

export interface MetricsSettings {
  /** A listener of its own for GET /metrics; 0: none. */
  port: number;
  /** The Bearer token GET /metrics asks for; when set, /metrics is also served on the main port. */
  token: string | undefined;
}

export interface WebhookSettings {
  /** Whether webhook URLs may point to private, loopback, link-local and other non-public addresses (tests, closed networks). */
  allowPrivate: boolean;
  /** First wait before retrying a failed post; doubles per retry (three retries). */
  retryBaseMs: number;
}

export interface WorkerSettings {
  /** Whether `mailroom serve` runs the delivery worker too (false: API only, with `mailroom worker` elsewhere). */
  enabled: boolean;
  /** Messages handed to the provider at once by one worker. */
  concurrency: number;
  /** How long a claimed message is this worker's before another may take it over (renewed while in flight). */
  leaseMs: number;
  /** How often an idle worker looks for due messages sent through other processes, or coming due for a retry. */
  pollMs: number;
  /** WORKER_NICE: the OS priority (nice value) of `serve`'s delivery thread (and the threads it starts); 0 is the API's own. */
  nice: number;
}

export interface InboundSettings {
  /** Port of the inbound SMTP receiver (bounces, delivery notifications, complaints); 0: none. */
  port: number;
  host: string;
  /** Where feedback loops send complaint reports, besides the return-path addresses (lower-cased). */
  complaintAddress: string;
}

export interface SubmissionSettings {
  /** Port of the SMTP submission server (applications sending through Mailroom); 0: none. */
  port: number;
  host: string;
  /** PEM files of the STARTTLS certificate and its key, read at start; both unset: a self-signed one is made. */
  tlsCertPath: string | undefined;
  tlsKeyPath: string | undefined;
  /** Whether AUTH is taken before STARTTLS (the API key then crosses the network in clear). */
  allowInsecureAuth: boolean;
  /** The name the server greets with and its generated certificate is made for. */
  hostname: string;
}

/** CONTENT_RETENTION_DAYS and LOG_RETENTION_DAYS (src/retention/); 0: kept for ever. */
export interface RetentionSettings {
  /** Days a message's bodies, attachments and built MIME are kept. */
  contentDays: number;
  /** Days a message is kept at all, with its log entries, events, attempts and webhook deliveries. */
  logDays: number;
}

/** The `ses` provider (AWS SES v2) and POST /v1/inbound/ses, where SNS brings SES's events. */
export interface SesSettings {
  /** AWS_REGION; unset: the AWS SDK's own chain (AWS_DEFAULT_REGION, the profile's region). */
  region: string | undefined;
  /** Another endpoint than AWS's (an SES-compatible service, the tests' emulator). */
  endpoint: string | undefined;
  /** Passed on every send: its event destination publishes to SNS. */
  configurationSet: string | undefined;
  /** Sends per second across every worker; unset: the account's MaxSendRate (GetAccount). */
  maxSendRate: number | undefined;
  /** The SNS topics whose notifications are used; empty: every notification is refused. */
  snsTopicArns: string[];
  /** Host patterns (`*` for one label, optional `:port`) SigningCertURL and SubscribeURL must be on. */
  snsTrustedHosts: string[];
  /** How long a recipient handed to SES may go without an event before it counts as overdue. */
  eventTimeoutMs: number;
}
