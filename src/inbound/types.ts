import type { BounceReason, Reason } from './bounce-reasons.js';
import type { DsnReport } from './delivery-status.js';
import type { InboundKind, SmtpCommand } from './kinds.js';

export type { BounceReason, Reason } from './bounce-reasons.js';
export type { InboundKind, SmtpCommand } from './kinds.js';

/**
 * The parser's vocabulary, shared by its files. `parse-report.ts` is the entry
 * point; see it for how a message is taken apart.
 */


/** One recipient's outcome: what `mailroom inbound parse --json` prints for each. */
export interface InboundResult {
  /** The recipient the outcome is about (lower-cased), or null when the message does not say. */
  recipient: string | null;
  kind: InboundKind;
  /** The RFC 3463 enhanced status code found (`5.1.1`), or null. */
  status: string | null;
  /** The diagnostic text as found (the remote server's reply, or the reporting MTA's words), or null. */
  diagnostic: string | null;
  /** ARF `Feedback-Type` (`abuse`, `fraud`, …) of a complaint, else null. */
  feedback_type: string | null;
  /** Why, in the one taxonomy of `bounce-reasons.ts` (`userunknown`, `mailboxfull`, `feedback`, `delivered`…); null for ordinary mail. */
  reason: Reason | null;
}

export interface ParsedReport {
  results: InboundResult[];
  /** Correlation: the original Message-ID found in the returned headers, if any (with its angle brackets). */
  originalMessageId: string | null;
  /** The envelope id (`Original-Envelope-Id`) or X-Mailroom id if any. */
  envelopeId: string | null;
  /** Mailroom return paths the report quotes as the original's envelope sender (lower-cased), most trusted first. */
  returnPaths: string[];
  /**
   * Set when reading the message failed (a reader's own fault, or bytes nothing could take apart): the
   * message then counts as ordinary mail, and this says what went wrong, for the log.
   */
  unreadable?: string;
}


/**
 * What a format reader found about one recipient of a bounce or delivery
 * report, before it is classified (`bounce-classifier.ts`).
 */
export interface BounceFinding {
  recipient: string | null;
  /** DSN `Action` (`failed`, `delayed`, `delivered`, `relayed`, `expanded`), lower-cased, or null. */
  action: string | null;
  /** Enhanced status code, or null. */
  status: string | null;
  /** The diagnostic text as found, or null. */
  diagnostic: string | null;
  /** More of the report's words about the recipient, read for the reason but not shown. */
  context: string | null;
  /** DSN diagnostic type (`smtp`, `x-unix`, `x-postfix`…), lower-cased, or null. */
  diagnosticType: string | null;
  command: SmtpCommand | null;
  /** The report says the failure is temporary (a delay warning, "will retry"). */
  temporary: boolean;
  /** A reason the format states outright (a provider's own bounce type), if any. */
  reason: BounceReason | null;
}

export function emptyFinding(recipient: string | null): BounceFinding {
  return { recipient, action: null, status: null, diagnostic: null, context: null, diagnosticType: null, command: null, temporary: false, reason: null };
}

/** What a reader of bounces found: the recipients, and the RFC 3464 report they came from, if any. */
export interface BounceReading {
  findings: BounceFinding[];
  dsn: DsnReport | null;
}
