import type { BuiltMessage, Envelope } from './message-builder.js';

/** The MIME one envelope carries: its own copy when the message is tracked, else the message's one. */
export const rawFor = (message: BuiltMessage, envelope: Envelope): Buffer => envelope.raw ?? message.raw;

/**
 * What became of one recipient at the provider:
 * - `delivered`: it reached its mailbox (only the sandbox can say so at once);
 * - `accepted`: handed over to an upstream that reports delivery later (a
 *   relay's DSN, SES's notification), so the recipient stays `sent`;
 * - `temporary`: try again later (a 4xx, a timeout, a connection that failed);
 * - `permanent`: refused for good: the address (`bounceSubtype` NoEmail or
 *   General: suppressed) or this message (content, policy, size: not);
 * - `failed`: the provider refused Mailroom itself (credentials, the sender,
 *   relaying): nothing to do with the recipient, and no retry helps.
 * `detail` is the provider's own words, kept as the attempt's record and the
 * log entry's error. `complaint` is the sandbox simulator's: the recipient
 * will complain about the message (with this feedback type).
 */
export interface RecipientOutcome {
  recipient: string;
  kind: 'delivered' | 'accepted' | 'temporary' | 'permanent' | 'failed';
  detail: string;
  complaint?: string;
  /** `permanent`: the SES-style subtype (delivery/refusal-table.ts); only NoEmail and General suppress. */
  bounceSubtype?: string;
  /** A problem with the provider itself, not the recipient: the operator hears of it (provider-trouble.ts). */
  problem?: ProviderProblem;
  /** The upstream's own id for the hand-over (SES's MessageId), kept with the attempt; upstreams that give none leave it out. */
  providerMessageId?: string;
  /** How long this recipient's hand-over took, where the provider times each (one transaction per recipient); else the whole send's. */
  durationMs?: number;
}

/** Provider trouble that is not the recipient's fault. */
export interface ProviderProblem {
  /** `smtputf8`: the relay does not announce SMTPUTF8, which an address with a non-ASCII local part needs. */
  kind: 'connection' | 'timeout' | 'tls' | 'auth' | 'sender' | 'relay-policy' | 'session' | 'smtputf8' | 'throttling' | 'service' | 'account' | 'configuration' | 'request';
  /** Where the provider is (host:port, or an API's endpoint host), never with credentials. */
  host: string;
  /** What it answered, or the error that stood in for an answer. */
  reply: string;
}

/** An upstream that takes built messages: one file per kind (sandbox, smtp, …), one interface. */
export interface Provider {
  readonly name: string;
  /** One outcome per envelope recipient, in envelope order. Never throws for a delivery problem: that is an outcome. */
  send(message: BuiltMessage): Promise<RecipientOutcome[]>;
  /** Connects and authenticates without sending (EHLO and AUTH; SES's GetAccount); throws what went wrong. */
  verify?(): Promise<void>;
  close(): Promise<void>;
}
