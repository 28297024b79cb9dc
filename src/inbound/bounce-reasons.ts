import { HARD_BOUNCE_SUBTYPES } from '../events/index.js';
import type { InboundKind } from './kinds.js';

/**
 * The one reason taxonomy of Mailroom: why a recipient's message came back
 * (or did not), what kind of outcome that is, and the SES-style
 * `bounce_type`/`bounce_subtype` a `bounced` event carries. The inbound
 * parser (`bounce-classifier.ts`) reads a report's recipients into these
 * reasons, and the outgoing refusal table (`delivery/refusal-table.ts`) reads
 * a relay's replies into the same ones; docs/inbound.md ("How inbound reports are
 * classified") is this table, row by row.
 *
 * The reasons follow sisimai's (https://libsisimai.org/en/reason/), whose
 * split between hard and soft bounces is the one the field uses: a bounce is
 * hard only when the address itself is bad for good, so that only then is
 * the address suppressed. Everything else (a full mailbox, a spam filter, a
 * block list, a rate limit, an expired queue entry) may pass next time.
 */

/** How a reason's kind is decided: `hard-if-permanent` is hard with a 5.x.x status (or a 5xx reply), soft otherwise. */
export type ReasonKind = 'hard' | 'hard-if-permanent' | 'soft' | 'complaint' | 'delivered' | 'autoreply' | 'none';

/** SES's bounce subtypes that Mailroom uses (SPEC.md §6.2's `bounce_subtype`). */
export type BounceSubtype = 'NoEmail' | 'General' | 'MailboxFull' | 'MessageTooLarge' | 'ContentRejected' | 'Undetermined';

export interface ReasonRow {
  /** In words, for people (docs/inbound.md, the CLI). */
  label: string;
  kind: ReasonKind;
  /** For a bounce: the subtype when it is hard (`NoEmail`, `General`) and when it is soft. */
  subtype: { hard: BounceSubtype; soft: BounceSubtype } | null;
}

const NO_EMAIL = { hard: 'NoEmail', soft: 'Undetermined' } as const;
const GENERAL = { hard: 'General', soft: 'Undetermined' } as const;
const CONTENT = { hard: 'General', soft: 'ContentRejected' } as const;
const SIZE = { hard: 'General', soft: 'MessageTooLarge' } as const;

/** Every reason, with its kind and subtype. Bounce reasons first, then the outcomes that are no bounce. */
export const BOUNCE_REASONS = {
  userunknown: { label: 'user unknown', kind: 'hard', subtype: NO_EMAIL },
  hostunknown: { label: 'host unknown', kind: 'hard', subtype: GENERAL },
  hasmoved: { label: 'has moved', kind: 'hard', subtype: GENERAL },
  notaccept: { label: 'domain accepts no mail (null MX)', kind: 'hard-if-permanent', subtype: GENERAL },
  mailboxfull: { label: 'mailbox full', kind: 'soft', subtype: { hard: 'General', soft: 'MailboxFull' } },
  mesgtoobig: { label: 'message too big', kind: 'soft', subtype: SIZE },
  exceedlimit: { label: 'message exceeds a limit', kind: 'soft', subtype: SIZE },
  suspend: { label: 'mailbox suspended', kind: 'soft', subtype: GENERAL },
  filtered: { label: 'filtered by the recipient', kind: 'soft', subtype: CONTENT },
  spamdetected: { label: 'spam detected', kind: 'soft', subtype: CONTENT },
  virusdetected: { label: 'virus detected', kind: 'soft', subtype: CONTENT },
  contenterror: { label: 'content error', kind: 'soft', subtype: CONTENT },
  policyviolation: { label: 'policy', kind: 'soft', subtype: CONTENT },
  blocked: { label: 'blocked', kind: 'soft', subtype: CONTENT },
  badreputation: { label: 'bad reputation', kind: 'soft', subtype: CONTENT },
  requireptr: { label: 'no reverse DNS', kind: 'soft', subtype: CONTENT },
  authfailure: { label: 'authentication failure (SPF, DKIM, DMARC)', kind: 'soft', subtype: CONTENT },
  securityerror: { label: 'security failure', kind: 'soft', subtype: CONTENT },
  rejected: { label: 'sender rejected', kind: 'soft', subtype: GENERAL },
  norelaying: { label: 'relaying denied', kind: 'soft', subtype: GENERAL },
  speeding: { label: 'rate limited', kind: 'soft', subtype: GENERAL },
  toomanyconn: { label: 'too many connections or recipients', kind: 'soft', subtype: GENERAL },
  systemerror: { label: 'system error', kind: 'soft', subtype: GENERAL },
  systemfull: { label: 'system full', kind: 'soft', subtype: GENERAL },
  networkerror: { label: 'network error', kind: 'soft', subtype: GENERAL },
  expired: { label: 'expired (gave up retrying)', kind: 'soft', subtype: GENERAL },
  mailererror: { label: 'mailer error', kind: 'soft', subtype: GENERAL },
  syntaxerror: { label: 'SMTP syntax error', kind: 'soft', subtype: GENERAL },
  undefined: { label: 'undetermined', kind: 'soft', subtype: GENERAL },
  feedback: { label: 'feedback report (a complaint, unless its type is not-spam or auth-failure)', kind: 'complaint', subtype: null },
  delivered: { label: 'delivered', kind: 'delivered', subtype: null },
  vacation: { label: 'auto-reply (vacation)', kind: 'autoreply', subtype: null },
} as const satisfies Record<string, ReasonRow>;

export type Reason = keyof typeof BOUNCE_REASONS;

/** The reasons of a bounce (hard or soft), which the classifier chooses among. */
export type BounceReason = {
  [R in Reason]: (typeof BOUNCE_REASONS)[R]['kind'] extends 'hard' | 'hard-if-permanent' | 'soft' ? R : never;
}[Reason];

export function isReason(value: string): value is Reason {
  return Object.hasOwn(BOUNCE_REASONS, value);
}

/** Whether the reason is one of a bounce, hard or soft (not a complaint, a delivery, an auto-reply). */
export function isBounceReason(reason: Reason): reason is BounceReason {
  const { kind } = BOUNCE_REASONS[reason];
  return kind === 'hard' || kind === 'hard-if-permanent' || kind === 'soft';
}

/** Whether a bounce for this reason is hard: the address is bad for good. `permanent`: a 5.x.x status or 5xx reply. */
export function isHardReason(reason: Reason, permanent: boolean): boolean {
  const { kind } = BOUNCE_REASONS[reason];
  return kind === 'hard' || (kind === 'hard-if-permanent' && permanent);
}

/** The kind of result a reason makes; a bounce's hardness needs `permanent` and whether the report says it is only a delay. */
export function kindOfReason(reason: Reason, permanent: boolean, delayed: boolean): InboundKind {
  const { kind } = BOUNCE_REASONS[reason] as ReasonRow;
  if (kind === 'complaint' || kind === 'delivered' || kind === 'autoreply' || kind === 'none') return kind;
  return !delayed && isHardReason(reason, permanent) ? 'hard_bounce' : 'soft_bounce';
}

export { HARD_BOUNCE_SUBTYPES };

/** SES's `bounce_subtype` of a bounce for this reason; `Undetermined` for a reason that is no bounce. */
export function bounceSubtypeOf(reason: Reason, hard: boolean): BounceSubtype {
  const { subtype } = BOUNCE_REASONS[reason] as ReasonRow;
  if (!subtype) return 'Undetermined';
  return hard ? subtype.hard : subtype.soft;
}

/** SES's `bounce_type`: `Permanent` for a hard bounce or a final refusal (5.x.x), `Transient` for one that may pass later. */
export function bounceTypeOf(hard: boolean, permanent: boolean): 'Permanent' | 'Transient' {
  return hard || permanent ? 'Permanent' : 'Transient';
}
