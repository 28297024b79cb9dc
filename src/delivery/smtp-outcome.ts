import { storableText } from '../lib/external-text.js';
import type { ProviderProblem, RecipientOutcome } from './provider.js';
import { classifyRefusal, sameRefusalForEveryRecipient, type Refusal, type SmtpReply, type SmtpStage } from './refusal-table.js';

/** What Nodemailer's SMTP client reports of a failed transaction (smtp-connection's _formatError). */
export interface SmtpError extends Error {
  code?: string;
  command?: string;
  responseCode?: number | false;
  response?: string;
  recipient?: string;
  rejectedErrors?: SmtpError[];
}

/** The stage a Nodemailer `command` names (`MAIL FROM`, `RCPT TO`, `AUTH PLAIN`, `CONN`, `HELO`, …). */
function stageOf(command: string | undefined): SmtpStage | undefined {
  const word = command?.split(' ')[0]?.toUpperCase();
  if (word === 'MAIL' || word === 'RCPT' || word === 'DATA' || word === 'AUTH' || word === 'CONN' || word === 'STARTTLS') return word;
  if (word === 'EHLO' || word === 'HELO' || word === 'LHLO') return 'EHLO';
  return undefined;
}

/**
 * The relay's reply an error carries; a connection that failed has none.
 * Two of Nodemailer's own refusals stand for a reply: a missing password
 * (the relay would refuse the session, RFC 4954's 530) and a message larger
 * than the SIZE the relay announced (RFC 1870's 552 5.3.4, which it would
 * answer): said as the relay would, in Nodemailer's words.
 */
export function replyOf(error: SmtpError): SmtpReply {
  const code = typeof error.responseCode === 'number' ? error.responseCode : undefined;
  const text = storableText((error.response ?? error.message).trim());
  if (code === undefined && (error.code === 'EAUTH' || error.code === 'ENOAUTH')) return { stage: 'AUTH', code: 530, text: `530 5.7.0 ${text}` };
  if (code === undefined && error.code === 'EMESSAGE' && /larger than allowed/i.test(text)) return { stage: 'DATA', code: 552, text: `552 5.3.4 ${text} (the relay's SIZE)` };
  return { stage: code === undefined ? undefined : stageOf(error.command), code, text };
}

/** The operator's kind of problem, when it is the provider's and not the recipient's. */
function problemOf(error: SmtpError, reply: SmtpReply, refusal: Refusal, host: string): ProviderProblem | undefined {
  const at = (kind: ProviderProblem['kind']) => ({ kind, host, reply: reply.text });
  if (reply.code === undefined) {
    if (error.code === 'ETIMEDOUT' || /time(d)? ?out/i.test(reply.text)) return at('timeout');
    if (error.code === 'ETLS' || /certificate|\btls\b|\bssl\b/i.test(reply.text)) return at('tls');
    return at('connection');
  }
  // A refusal of the session or the sender, or a reply about Mailroom (relaying, authentication), even a 4xx one: not a recipient's greylisting.
  const sessionWide = reply.stage !== 'RCPT' && reply.stage !== 'DATA';
  if (refusal.verdict !== 'relay' && !(refusal.verdict === 'temporary' && (sessionWide || refusal.aboutMailroom))) return undefined;
  if (reply.stage === 'AUTH') return at('auth');
  if (reply.stage === 'MAIL') return at('sender');
  if (reply.stage === 'CONN' || reply.stage === 'EHLO' || reply.stage === 'STARTTLS') return at('session');
  return at('relay-policy');
}

/** The `failed` sentence: who refused (the relay, by host), why in a word, what to check, and its reply, quoted. */
function failure(rule: string, stage: SmtpStage | undefined, host: string, text: string): string {
  const quoted = JSON.stringify(text);
  if (stage === 'AUTH') return `The SMTP relay ${host} refused Mailroom's credentials (check SMTP_URL): ${quoted}`;
  if (rule === 'relay-session') return `The SMTP relay ${host} refused the session at ${stage} (check SMTP_URL and the relay's settings): ${quoted}`;
  if (rule === 'relay-sender') return `The SMTP relay ${host} refused the sender (check SMTP_URL and the relay's allowed senders): ${quoted}`;
  return `The SMTP relay ${host} refused to relay for Mailroom (check SMTP_URL's credentials and the relay's allowed senders and networks): ${quoted}`;
}

interface Read {
  recipient: string;
  error: SmtpError | undefined;
  reply: SmtpReply;
  refusal: Refusal;
}

/** The outcome of one recipient whose transaction the relay refused (or that failed without a reply). */
function outcomeOf({ recipient, error, reply, refusal }: Read, host: string): RecipientOutcome {
  const problem = error ? problemOf(error, reply, refusal, host) : undefined;
  const withProblem = problem ? { problem } : {};
  switch (refusal.verdict) {
    case 'temporary':
      return { recipient, kind: 'temporary', detail: reply.text, ...withProblem };
    case 'relay':
      return { recipient, kind: 'failed', detail: failure(refusal.rule, reply.stage, host, reply.text), ...withProblem };
    default:
      return { recipient, kind: 'permanent', detail: reply.text, bounceSubtype: refusal.subtype! };
  }
}

/** One recipient's transaction: taken, refused or failed, or decided by Mailroom before any of it was sent (`outcome`). */
export type SmtpResult = { recipient: string; accepted: string } | { recipient: string; error: SmtpError } | { recipient: string; outcome: RecipientOutcome };

/**
 * The outcomes of one message's transactions, one per recipient: accepted
 * ones as given, refused ones as the refusal table says (refusal-table.ts),
 * then the rule about the message as a whole: the same non-mailbox refusal
 * for every recipient is the relay refusing Mailroom.
 */
export function smtpOutcomes(results: SmtpResult[], host: string): RecipientOutcome[] {
  const read = results.map((r): Read | undefined => {
    if (!('error' in r)) return undefined;
    const reply = replyOf(r.error);
    return { recipient: r.recipient, error: r.error, reply, refusal: classifyRefusal(reply) };
  });
  if (sameRefusalForEveryRecipient(read)) {
    for (const r of read) r!.refusal = { ...r!.refusal, verdict: 'relay', rule: 'same-refusal-for-every-recipient' };
  }
  return results.map((r, i) => {
    if ('outcome' in r) return r.outcome;
    return 'accepted' in r ? { recipient: r.recipient, kind: 'accepted', detail: storableText(r.accepted) } : outcomeOf(read[i]!, host);
  });
}
