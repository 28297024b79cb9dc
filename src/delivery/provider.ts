import type { BuiltMessage } from './message-builder.js';

/**
 * What became of one recipient at the provider: `accepted` (handed over),
 * `temporary` (try again later: a 4xx, a timeout, a connection that failed)
 * or `permanent` (a 5xx: do not try again). `detail` is the provider's own
 * words, kept as the attempt's record and the log entry's error.
 */
export interface RecipientOutcome {
  recipient: string;
  kind: 'accepted' | 'temporary' | 'permanent';
  detail: string;
}

/** An upstream that takes built messages: one file per kind (sandbox, smtp, …), one interface. */
export interface Provider {
  readonly name: string;
  /** One outcome per envelope recipient, in envelope order. Never throws for a delivery problem: that is an outcome. */
  send(message: BuiltMessage): Promise<RecipientOutcome[]>;
  close(): Promise<void>;
}
