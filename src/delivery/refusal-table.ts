import { classifyFinding, statusReason, bounceSubtypeOf, isBounceReason, certainlyUnknownUser, matches, emptyFinding, type BounceReason, type SmtpCommand } from '../inbound/index.js';

/** Where in the SMTP session a reply came: the relay's greeting, EHLO, STARTTLS, AUTH, or a transaction's MAIL, RCPT or DATA. */
export type SmtpStage = 'CONN' | 'EHLO' | 'STARTTLS' | 'AUTH' | 'MAIL' | 'RCPT' | 'DATA';

/** What the relay answered (or did not). */
export interface SmtpReply {
  /** Undefined when the session died without a reply at this stage (no connection, a timeout, TLS). */
  stage: SmtpStage | undefined;
  /** The reply code, or undefined when there was no reply. */
  code: number | undefined;
  /** The reply's text, code included, as the relay wrote it (or the error that stood in for it). */
  text: string;
}

/**
 * Who refused, and so what becomes of the recipient:
 * - `relay`: the relay refused Mailroom (its credentials, its sender, its right
 *   to relay): `failed`, nothing suppressed, no bounce;
 * - `address`: the recipient's address is bad for good: `bounced`, suppressed;
 * - `message`: this message was refused, not the address (content, policy,
 *   size): `bounced` with a subtype saying so, not suppressed;
 * - `temporary`: try again later.
 */
export type RefusalVerdict = 'relay' | 'address' | 'message' | 'temporary';

export interface Refusal {
  verdict: RefusalVerdict;
  /** The rule of REFUSAL_RULES that decided (docs and tests name rows by it). */
  rule: string;
  /** The reason the inbound classifier reads in the reply (reason-patterns.ts, bounce-classifier.ts). */
  reason: BounceReason;
  /** For `address` and `message`: the SES-style bounce subtype (SPEC.md §6.2's `bounce_subtype`). */
  subtype?: string;
  /** The reply says the relay refuses Mailroom (relaying, the sender, authentication): even a 4xx of it is the provider's trouble. */
  aboutMailroom: boolean;
}

/**
 * Whether a reply is about Mailroom, not the recipient: relaying denied, the
 * sender refused, or authentication or encryption required, in so many words
 * (a bare 5.7.1 is read by the rules below, by where it came).
 */
function aboutMailroom(reason: BounceReason, text: string): boolean {
  return reason === 'norelaying' || reason === 'rejected' || matches('securityerror', text.toLowerCase());
}
/** RFC 3463 codes that, in answer to RCPT from a relay, refuse the sender or the session, not the mailbox. */
const RELAY_POLICY_STATUSES = new Set(['5.7.0', '5.7.1', '5.7.8', '5.7.9']);
/** 5.2.1 is "mailbox disabled, not accepting messages": the address, for good (the inbound classifier calls it filtered). */
const DISABLED_MAILBOX = '5.2.1';

interface ReadReply extends SmtpReply {
  enhanced: string | null;
  reason: BounceReason;
  hard: boolean;
  aboutMailroom: boolean;
  certainlyNoSuchUser: boolean;
}

interface Rule {
  rule: string;
  verdict: RefusalVerdict;
  applies(reply: ReadReply): boolean;
}

/**
 * The one table of who refused a hand-over to an SMTP relay, in order, the
 * first rule that applies deciding. The reason comes from the inbound
 * classifier (RFC 3463 code first, then the reply's wording), the same one
 * that reads bounces coming back; docs/delivery.md's refusal table is this one,
 * row by row.
 */
export const REFUSAL_RULES: readonly Rule[] = [
  // Nothing heard, or a reply outside any step of the transaction (a failed RSET between two messages): try again.
  { rule: 'no-reply', verdict: 'temporary', applies: (r) => r.code === undefined || r.stage === undefined },
  { rule: 'temporary-reply', verdict: 'temporary', applies: (r) => r.code! < 500 },
  { rule: 'relay-session', verdict: 'relay', applies: (r) => r.stage === 'CONN' || r.stage === 'EHLO' || r.stage === 'STARTTLS' || r.stage === 'AUTH' },
  // At MAIL FROM the sender is refused, unless the refusal is of the size the SIZE parameter announced.
  { rule: 'relay-sender', verdict: 'relay', applies: (r) => r.stage === 'MAIL' && r.reason !== 'mesgtoobig' },
  { rule: 'relay-policy', verdict: 'relay', applies: (r) => r.aboutMailroom },
  // Before the address rules: Postfix's `reject` answers "554 5.7.1 <…>: Recipient address rejected: Access denied",
  // which reads like Exchange's unknown user but is the relay refusing Mailroom. Only a certain "no such user" wins.
  { rule: 'relay-refused-recipient', verdict: 'relay', applies: (r) => r.stage === 'RCPT' && r.enhanced !== null && RELAY_POLICY_STATUSES.has(r.enhanced) && !r.certainlyNoSuchUser },
  { rule: 'recipient-address', verdict: 'address', applies: (r) => r.hard || r.enhanced === DISABLED_MAILBOX },
  { rule: 'message-refused', verdict: 'message', applies: () => true },
];

const ENHANCED = /\b([245]\.\d{1,3}\.\d{1,3})\b/;

/** Reads a relay's reply with the inbound classifier and finds the rule that decides it. */
export function classifyRefusal(reply: SmtpReply): Refusal {
  const enhanced = reply.code === undefined ? null : (ENHANCED.exec(reply.text)?.[1] ?? null);
  const command: SmtpCommand | null = reply.stage === 'CONN' || reply.stage === 'MAIL' || reply.stage === 'RCPT' || reply.stage === 'DATA' ? reply.stage : reply.stage === 'EHLO' ? 'HELO' : null;
  const finding = { ...emptyFinding(null), action: 'failed', status: enhanced, diagnostic: reply.text, command };
  const { kind, reason } = classifyFinding(finding);
  const readReason = isBounceReason(reason) ? reason : (statusReason(enhanced) ?? 'undefined');
  const read: ReadReply = {
    ...reply, enhanced, reason: readReason, hard: kind === 'hard_bounce' && (reply.code ?? 0) >= 500, aboutMailroom: aboutMailroom(readReason, reply.text),
    certainlyNoSuchUser: certainlyUnknownUser(reply.text.toLowerCase().replace(/\s+/g, ' ')),
  };
  const { rule, verdict } = REFUSAL_RULES.find((r) => r.applies(read))!;
  const refusal: Refusal = { verdict, rule, reason: read.reason, aboutMailroom: read.aboutMailroom };
  if (verdict === 'address') refusal.subtype = bounceSubtypeOf(read.reason, true);
  if (verdict === 'message') refusal.subtype = bounceSubtypeOf(read.reason, false);
  return refusal;
}

/** A reply with the addresses in it taken out: the same refusal for two recipients reads the same. */
function withoutAddresses(text: string): string {
  // An address is looked for from the start of a word only: from inside one, each try would read to its end.
  return text.replace(/(?:<|(?<![^\s<>]))[^\s<>]+@[^\s<>]+>?/g, '<>').trim();
}

/**
 * The rule about a message as a whole (`same-refusal-for-every-recipient`):
 * when every recipient (two or more) was refused at RCPT with the same reply
 * that names neither the address nor the message (`Undetermined`), the relay
 * is refusing the sender, not each mailbox.
 */
export function sameRefusalForEveryRecipient(replies: Array<{ reply: SmtpReply; refusal: Refusal } | undefined>): boolean {
  if (replies.length < 2) return false;
  const first = replies[0];
  if (!first) return false;
  const text = withoutAddresses(first.reply.text);
  // Only refusals that name neither the mailbox nor the message: two full mailboxes answering alike are still two full mailboxes.
  return replies.every(
    (r) =>
      r !== undefined && r.refusal.verdict === 'message' && r.refusal.subtype === 'Undetermined' && r.reply.stage === 'RCPT' &&
      r.reply.code === first.reply.code && withoutAddresses(r.reply.text) === text,
  );
}
