/** What the delivery side keeps of its upstreams across processes (migrations 0026 and 0028); part of `Database` in schema.ts. */

/** An upstream that refused Mailroom's credentials, and in its words why (0026): what /readyz tells. */
export interface ProviderRefusalsTable {
  provider: string;
  reason: string;
  since: string;
}

/** A rate shared by every worker on the store (0026): the next free slot, ms since the epoch (PostgreSQL's bigint reads as a string). */
export interface SendSlotsTable {
  name: string;
  next_at: number | string;
}

/** A workspace's own upstream (0028): an SMTP relay or an SES account. */
export interface UpstreamsTable {
  id: string;
  workspace_id: string;
  name: string;
  type: 'smtp' | 'ses';
  /** JSON of what may be shown: the URL without its password and the STARTTLS policy, or the region, access key id, configuration set and endpoint. */
  settings: string;
  /** The relay's password or the secret access key, sealed (secret-box.ts); null for a relay without a password. */
  secret: string | null;
  created_at: string;
  updated_at: string;
}

/** An upstream's health as every process on the store sees it (0028): the circuit breaker's state. */
export interface UpstreamHealthTable {
  /** The upstream's id, or `server:<provider>` for one of MAILROOM_PROVIDER's. */
  key: string;
  /** Failures of the upstream's own (not a recipient's) since `window_started_at`. */
  failures: number;
  window_started_at: string | null;
  /** Set while the upstream is down: nothing is sent to it before this, then one probe at a time. */
  down_until: string | null;
  /** Until when the probe in flight holds the upstream; null when none is. */
  probe_until: string | null;
  last_error: string | null;
  last_error_at: string | null;
  changed_at: string;
}

/** How a relay's STARTTLS is used: when offered (`opportunistic`), always (`required`: no plain-text session), or not at all (`never`). */
export type StartTlsPolicy = 'opportunistic' | 'required' | 'never';

/** `upstreams.settings` of an SMTP relay. */
export interface SmtpUpstreamSettings {
  /** `smtp://` or `smtps://`, with the user name but never the password (in `secret`). */
  url: string;
  starttls: StartTlsPolicy;
}

/** `upstreams.settings` of an SES account (the secret access key is in `secret`). */
export interface SesUpstreamSettings {
  region: string;
  access_key_id: string;
  configuration_set: string | null;
  endpoint: string | null;
}
