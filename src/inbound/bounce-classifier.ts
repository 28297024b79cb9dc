import { kindOfReason, type Reason } from './bounce-reasons.js';
import { certainlyUnknownUser, matches } from './reason-patterns.js';
import { findReplyCode } from './smtp-text.js';
import type { BounceFinding, BounceReason, InboundKind } from './types.js';

/**
 * Turns what a report says about one recipient (status code, diagnostic
 * text, the SMTP command it answered) into a reason of the taxonomy
 * (`bounce-reasons.ts`, which says which reasons are hard) and so a kind.
 *
 * The RFC 3463 status code is read first, the SMTP reply code second and the
 * diagnostic text third, with one refinement the field needs: a vague code
 * (x.0.0, a bare 5.7.1, 5.1.1 from a server that says so of everything) gives
 * way to wording that names a more precise reason ("mailbox full", "spam").
 */

/** Actions (RFC 3464 and what MTAs write instead) that report a success. */
const DELIVERED_ACTIONS = new Set(['delivered', 'relayed', 'expanded', 'deliverable']);
const UNDELIVERED_ACTIONS = new Set(['failed', 'delayed', 'failure']);

/** What a reply code says when nothing else does (RFC 5321 §4.2.2, RFC 7504 for 521 and 556). */
const REPLY_REASONS: Record<string, BounceReason> = {
  '521': 'notaccept', '556': 'notaccept', '552': 'mailboxfull', '421': 'systemerror', '451': 'systemerror', '452': 'systemfull',
};

/** What an enhanced status code means on its own (RFC 3463, RFC 7505 for null MX, RFC 7372 and RFC 8098 extensions). */
const STATUS_REASONS: Record<string, BounceReason> = {
  'X.1.0': 'userunknown', 'X.1.1': 'userunknown', 'X.1.2': 'hostunknown', 'X.1.3': 'userunknown', 'X.1.4': 'filtered',
  'X.1.6': 'hasmoved', 'X.1.7': 'rejected', 'X.1.8': 'rejected', 'X.1.9': 'systemerror', 'X.1.10': 'notaccept',
  'X.2.0': 'filtered', 'X.2.1': 'filtered', 'X.2.2': 'mailboxfull', 'X.2.3': 'exceedlimit', 'X.2.4': 'filtered',
  'X.3.0': 'systemerror', 'X.3.1': 'systemfull', 'X.3.2': 'notaccept', 'X.3.3': 'systemerror', 'X.3.4': 'mesgtoobig', 'X.3.5': 'systemerror',
  'X.4.0': 'networkerror', 'X.4.1': 'expired', 'X.4.2': 'networkerror', 'X.4.3': 'systemerror', 'X.4.4': 'hostunknown',
  'X.4.5': 'systemfull', 'X.4.6': 'networkerror', 'X.4.7': 'expired',
  'X.5.3': 'toomanyconn', 'X.5.4': 'systemerror', 'X.5.5': 'systemerror',
  'X.6.0': 'contenterror', 'X.6.1': 'contenterror', 'X.6.2': 'contenterror', 'X.6.3': 'contenterror', 'X.6.5': 'contenterror',
  'X.6.6': 'contenterror', 'X.6.7': 'contenterror', 'X.6.8': 'contenterror', 'X.6.9': 'contenterror',
  'X.7.1': 'securityerror', 'X.7.2': 'securityerror', 'X.7.13': 'suspend', 'X.7.17': 'hasmoved', 'X.7.18': 'hasmoved',
  'X.7.23': 'authfailure', 'X.7.24': 'authfailure', 'X.7.25': 'requireptr', 'X.7.26': 'authfailure', 'X.7.27': 'rejected',
};

/** Reasons a status code may name that are worth a second look at the text before being believed. */
const VAGUE_STATUS_REASONS = new Set<BounceReason>(['systemerror', 'securityerror', 'expired', 'networkerror', 'hostunknown', 'userunknown', 'suspend']);

/** Soft reasons whose wording outweighs a status code that says the user is unknown. */
const OUTWEIGH_USER_UNKNOWN: Array<Exclude<BounceReason, 'undefined'>> = [
  'mailboxfull', 'mesgtoobig', 'exceedlimit', 'suspend', 'norelaying', 'authfailure', 'speeding', 'toomanyconn',
  'filtered', 'rejected', 'blocked', 'spamdetected', 'virusdetected', 'notaccept', 'hasmoved',
];

/** Soft reasons tried, in this order, when nothing decisive was found. */
const FALLBACK_ORDER: Array<Exclude<BounceReason, 'undefined'>> = [
  'mailboxfull', 'spamdetected', 'virusdetected', 'policyviolation', 'norelaying', 'authfailure', 'badreputation', 'requireptr',
  'speeding', 'toomanyconn', 'blocked', 'securityerror', 'systemfull', 'networkerror', 'systemerror', 'suspend', 'expired',
  'contenterror', 'mailererror', 'syntaxerror',
];

export function statusReason(status: string | null): BounceReason | null {
  if (!status) return null;
  return STATUS_REASONS[`X.${status.slice(2)}`] ?? null;
}

export interface Classification {
  kind: InboundKind;
  reason: Reason;
}

export function classifyFinding(finding: BounceFinding): Classification {
  const action = finding.action ?? '';
  if (DELIVERED_ACTIONS.has(action) || (finding.status?.startsWith('2.') && !UNDELIVERED_ACTIONS.has(action))) {
    return { kind: 'delivered', reason: 'delivered' };
  }
  const reason = finding.reason ?? detectReason(finding);
  const replyCode = findReplyCode(finding.diagnostic);
  const permanent = finding.status ? finding.status.startsWith('5') : replyCode ? replyCode.startsWith('5') : !finding.temporary;
  const delayed = action === 'delayed' || finding.temporary;
  return { kind: kindOfReason(reason, permanent, delayed), reason };
}

/** The reason a finding reads as, from its status code, its diagnostic text and the command it answered. */
export function detectReason(finding: BounceFinding): BounceReason {
  const text = [finding.diagnostic, finding.context].filter(Boolean).join(' ').toLowerCase().replace(/\s+/g, ' ');
  const byStatus = statusReason(finding.status);
  const command = finding.command;

  // A local delivery program's failure (procmail, a pipe) says nothing about the address.
  if (finding.diagnosticType === 'x-unix') {
    return FALLBACK_ORDER.find((r) => r !== 'mailererror' && matches(r, text)) ?? 'mailererror';
  }

  for (const reason of ['mailboxfull', 'mesgtoobig', 'exceedlimit', 'suspend', 'hasmoved', 'norelaying', 'authfailure', 'speeding'] as const) {
    if (byStatus === reason || matches(reason, text)) return reason;
  }
  if (certainlyUnknownUser(text)) return 'userunknown';
  // An error in reply to MAIL FROM is about the sender, not the recipient.
  if (command === 'MAIL') return matches('blocked', text) ? 'blocked' : 'rejected';
  if (byStatus === 'userunknown' && !OUTWEIGH_USER_UNKNOWN.some((r) => matches(r, text))) return 'userunknown';
  if (command === 'RCPT' && matches('userunknown', text)) return 'userunknown';
  // "User unknown" in answer to anything but RCPT (after DATA, or with no
  // command said) is as often a content filter's pretext: not trusted as hard.
  if ((byStatus === 'filtered' && (matches('userunknown', text) || matches('filtered', text))) ||
      (command !== 'RCPT' && (matches('filtered', text) || matches('userunknown', text)))) {
    return 'filtered';
  }
  if (matches('notaccept', text)) return 'notaccept';
  if (byStatus === 'rejected' || matches('rejected', text)) return 'rejected';
  if ((byStatus === 'hostunknown' && !matches('networkerror', text)) || matches('hostunknown', text)) return 'hostunknown';
  if (byStatus === 'notaccept') return 'notaccept';
  if (byStatus && !VAGUE_STATUS_REASONS.has(byStatus)) return byStatus;
  const byText = FALLBACK_ORDER.find((r) => matches(r, text));
  if (byText) return byText;
  if (byStatus && byStatus !== 'userunknown' && byStatus !== 'hostunknown') return byStatus;
  const subject = finding.status?.slice(0, 3).slice(2);
  if (subject === '6') return 'contenterror';
  if (subject === '7') return 'securityerror';
  if (finding.diagnosticType === 'x-postfix' && !text) return 'mailererror';
  if (finding.action === 'delayed' || finding.temporary) return 'expired';
  if (command === 'HELO' || command === 'CONN') return 'blocked';
  if (/^50[0-4]\b/.test(text)) return 'syntaxerror';
  return REPLY_REASONS[/^\s*([45]\d\d)[ -]/.exec(text)?.[1] ?? ''] ?? 'undefined';
}
