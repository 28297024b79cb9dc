import { classifyFinding } from './bounce-classifier.js';
import { emptyFinding, type BounceReason } from './types.js';

/** Subtypes of hard bounces: the suppression list takes the address for these and no others. */
export const HARD_BOUNCE_SUBTYPES: ReadonlySet<string> = new Set(['NoEmail', 'General']);

/** Reasons that refuse a message for what it is or where it comes from, not for its size or the mailbox. */
const CONTENT_OR_POLICY: ReadonlySet<BounceReason> = new Set([
  'filtered', 'spamdetected', 'virusdetected', 'contenterror', 'policyviolation', 'authfailure', 'blocked', 'badreputation', 'requireptr', 'securityerror',
]);

/**
 * A bounce's SES-style subtype (SPEC.md §6.2's `bounce_subtype`): `NoEmail`
 * (no such mailbox) or `General` for a hard bounce, the only two that put the
 * address on the suppression list; for a refusal of the message, not the
 * address, `MailboxFull`, `MessageTooLarge`, `ContentRejected` (content or
 * policy) or `Undetermined`.
 */
export function bounceSubtypeOf(reason: BounceReason | 'delivered', hard: boolean): string {
  if (hard) return reason === 'userunknown' ? 'NoEmail' : 'General';
  if (reason === 'mailboxfull') return 'MailboxFull';
  if (reason === 'mesgtoobig' || reason === 'exceedlimit') return 'MessageTooLarge';
  return reason !== 'delivered' && CONTENT_OR_POLICY.has(reason) ? 'ContentRejected' : 'Undetermined';
}

/** The subtype of a bounce the parser already judged (a returned DSN), from its status and diagnostic. */
export function reportedBounceSubtype(status: string | null, diagnostic: string | null, hard: boolean): string {
  const { reason } = classifyFinding({ ...emptyFinding(null), action: 'failed', status, diagnostic });
  return bounceSubtypeOf(reason, hard);
}
