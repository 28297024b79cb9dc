import type { BuiltMessage } from './message-builder.js';

/**
 * What became of one recipient at the provider:
 * - `delivered`: it reached its mailbox (only the sandbox can say so at once);
 * - `accepted`: handed over to an upstream that reports delivery later (a
 *   relay's DSN, SES's notification), so the recipient stays `sent`;
 * - `temporary`: try again later (a 4xx, a timeout, a connection that failed);
 * - `permanent`: the recipient was refused for good (a 5xx to RCPT or DATA): a bounce;
 * - `failed`: the provider itself is misconfigured (credentials refused, the
 *   sender refused): nothing to do with the recipient, and no retry helps.
 * `detail` is the provider's own words, kept as the attempt's record and the
 * log entry's error. `complaint` is the sandbox simulator's: the recipient
 * will complain about the message (with this feedback type).
 */
export interface RecipientOutcome {
  recipient: string;
  kind: 'delivered' | 'accepted' | 'temporary' | 'permanent' | 'failed';
  detail: string;
  complaint?: string;
}

/** An upstream that takes built messages: one file per kind (sandbox, smtp, …), one interface. */
export interface Provider {
  readonly name: string;
  /** One outcome per envelope recipient, in envelope order. Never throws for a delivery problem: that is an outcome. */
  send(message: BuiltMessage): Promise<RecipientOutcome[]>;
  close(): Promise<void>;
}
