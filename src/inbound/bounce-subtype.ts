import { classifyFinding } from './bounce-classifier.js';
import { findStatusCode } from './smtp-text.js';
import { emptyFinding, type BounceReason } from './types.js';

/** A bounce's SES-style subtype (SPEC.md §6.2's `bounce_subtype`), and whether it puts the address on the suppression list. */
export interface BounceDescription {
  subtype: string;
  /** A hard bounce (unknown user or domain, mailbox moved): the address is suppressed. */
  hard: boolean;
}

/** Subtypes of hard bounces: the suppression list takes the address for these and no others. */
export const HARD_BOUNCE_SUBTYPES: ReadonlySet<string> = new Set(['NoEmail', 'General']);

function subtypeOf(reason: BounceReason | 'delivered', hard: boolean): string {
  if (hard) return reason === 'userunknown' ? 'NoEmail' : 'General';
  switch (reason) {
    case 'mailboxfull':
      return 'MailboxFull';
    case 'mesgtoobig':
      return 'MessageTooLarge';
    case 'filtered':
    case 'spamdetected':
    case 'virusdetected':
    case 'contenterror':
    case 'policyviolation':
      return 'ContentRejected';
    default:
      return 'Undetermined';
  }
}

/**
 * What a permanent refusal a relay gave at once (a 5xx reply, `detail` being
 * its words) amounts to, read with the same classifier as returned bounces:
 * `550 5.1.1 User unknown` is hard, `554 5.7.1 rejected as spam` is not, so
 * only the former suppresses the address.
 */
export function describeRefusal(detail: string): BounceDescription {
  const { kind, reason } = classifyFinding({ ...emptyFinding(null), action: 'failed', status: findStatusCode(detail), diagnostic: detail });
  const hard = kind === 'hard_bounce';
  return { subtype: subtypeOf(reason, hard), hard };
}

/** The subtype of a bounce the parser already judged hard (a returned DSN), from its status and diagnostic. */
export function hardBounceSubtype(status: string | null, diagnostic: string | null): string {
  const { reason } = classifyFinding({ ...emptyFinding(null), action: 'failed', status, diagnostic });
  return subtypeOf(reason, true);
}
