import type { MimeMessage } from '../mime-message.js';
import { firstAddress, isAtToken } from '../smtp-text.js';
import type { BounceReading } from '../types.js';
import { failedFinding, linesBefore, reasonByWording, type Wordings } from './family-finding.js';

/**
 * Ipswitch (now Progress) IMail Server: subject "Undeliverable Mail",
 * `X-Mailer: <SMTP32 v…>`, one line per failed recipient naming the error
 * before the address ("Unknown user: ada@example.net", "undeliverable to
 * ada@example.net"), the remote's words after "Body of message generated
 * response:", and the original after "Original message follows.".
 */

const IMAIL_WORDINGS: Wordings = [
  ['hostunknown', ['unknown host']],
  ['userunknown', ['unknown user', 'invalid final delivery userid']],
  ['mailboxfull', ['user mailbox exceeds allowed size']],
  ['virusdetected', ['requested action not taken: virus detected']],
  ['expired', ['delivery failed ']],
];

// A recipient's line: a name for the error and a colon, or "undeliverable to", then the address alone
// (bracketed or not). The address is judged apart (recipientOn): as part of the pattern, its
// `[^\s<>]+@[^\s<>]+?` would backtrack quadratically over a run of `@`.
const NAMED_ERROR = /^\s*([A-Za-z][A-Za-z ]{4,}?):\s+([\s\S]*)$/;
const UNDELIVERABLE_TO = /^\s*undeliverable to\s+([\s\S]*)$/i;

/** The address a line is wholly about (`<a@b>`, `a@b`, space after it), else null. */
function lineAddress(rest: string): string | null {
  const token = rest.trimEnd().replace(/^</, '').replace(/>$/, '');
  return isAtToken(token) ? token : null;
}

/** The failed recipient a line names, with the error's name before it, or null. */
function recipientOn(line: string): { error: string; address: string } | null {
  const named = NAMED_ERROR.exec(line);
  const address = named && lineAddress(named[2]!);
  if (address) return { error: named[1]!, address };
  const undeliverable = UNDELIVERABLE_TO.exec(line);
  const after = undeliverable && lineAddress(undeliverable[1]!);
  return after ? { error: '', address: after } : null;
}

export function readImail(message: MimeMessage): BounceReading | null {
  if (!/^\s*Undeliverable Mail(?!\s*:)\b/i.test(message.subject) && !/^<?SMTP32 v/i.test(message.header('x-mailer') ?? '')) return null;
  const named: Array<{ recipient: string; line: string }> = [];
  const response: string[] = [];
  let inResponse = false;
  // `[ \t]*`, not `\s*`: from each blank line above the marker, `^\s*` read every one below it again. The
  // match may start later (at the marker's own line, not a blank one above it): those lines are blank.
  for (const line of linesBefore(message.text, /^[ \t]*Original message follows\.?[ \t]*$/im)) {
    const match = recipientOn(line);
    // "Original Sender: <…>" and the like name the sender, not a failed recipient.
    const recipient = match && !/sender|from/i.test(match.error) ? firstAddress(match.address) : null;
    if (recipient) {
      inResponse = false;
      named.push({ recipient, line: line.trim() });
    } else if (/Body of message generated response:/i.test(line)) {
      inResponse = true;
    } else if (inResponse && line.trim()) response.push(line.trim());
  }
  // The remote's response is about the message, so about each recipient named.
  const findings = named.map(({ recipient, line }) => {
    const said = [response.join(' '), line].filter(Boolean).join(' ');
    return failedFinding(recipient, said, reasonByWording(IMAIL_WORDINGS, said));
  });
  return findings.length ? { findings, dsn: null } : null;
}
