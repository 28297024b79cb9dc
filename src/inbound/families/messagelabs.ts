import { findingsFromText } from '../generic-readers.js';
import type { MimeMessage } from '../mime-message.js';
import type { BounceReading } from '../types.js';
import { dsnReading, reasonByWording, type Wordings } from './family-finding.js';

/**
 * Symantec (now Broadcom) Email Security.cloud, formerly MessageLabs: "This
 * is the mail delivery agent at Symantec Email Security.cloud", an RFC 3464
 * report from MAILER-DAEMON@messagelabs.com, `X-Msg-Ref` on every message it
 * handles. Its replies name reasons in its own words (Broadcom's knowledge
 * base, "Email error and bounce codes"): "542 <address> Rejected" is its
 * refusal of a recipient it does not know, whatever the status says.
 */

const MESSAGELABS_WORDINGS: Wordings = [
  ['userunknown', [/\b542\b/, /(?<!\S)[^\s@]*@\S+>? rejected\b/i, 'no such user', 'invalid recipient', 'mailbox is not allowed']],
  ['authfailure', ['domain authentication fail']],
  ['badreputation', ['connection rejected by policy']],
  ['rejected', ['sender envelope domain not allowed', 'your domain has been blocked', 'your email address has been blocked', 'badmailfrom list', 'has been blacklisted']],
  ['blocked', ['your ip is in the pbl', 'your ip address has been']],
  ['contenterror', ['stray linefeeds in message', 'is not rfc 5322', 'requested action aborted [4]']],
  ['norelaying', [' as a relay, ']],
  ['securityerror', ['please turn on smtp authentication', 'tls/sslv3 connection required']],
  ['spamdetected', ['message filtered', 'filtered by outbound scanning']],
  ['toomanyconn', ['too many recipients received this hour', 'too many messages']],
];

function fromMessageLabs(message: MimeMessage): boolean {
  return (
    message.header('x-msg-ref') !== null ||
    /@messagelabs\.com$/i.test(message.fromAddress ?? '') ||
    /mail delivery agent at (?:symantec|messagelabs|broadcom)|email security\.cloud/i.test(message.text.slice(0, 2000))
  );
}

export function readMessageLabs(message: MimeMessage): BounceReading | null {
  if (!fromMessageLabs(message)) return null;
  const reading = dsnReading(message) ?? findingsFromText(message);
  if (!reading) return null;
  for (const finding of reading.findings) finding.reason = reasonByWording(MESSAGELABS_WORDINGS, finding.diagnostic) ?? finding.reason;
  return reading;
}
