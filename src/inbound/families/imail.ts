import type { MimeMessage } from '../mime-message.js';
import { firstAddress } from '../smtp-text.js';
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

const RECIPIENT_LINE = /^\s*(?:([A-Za-z][A-Za-z ]{4,}?):\s+|undeliverable to\s+)<?([^\s<>]+@[^\s<>]+?)>?\s*$/i;

export function readImail(message: MimeMessage): BounceReading | null {
  if (!/^\s*Undeliverable Mail(?!\s*:)\b/i.test(message.subject) && !/^<?SMTP32 v/i.test(message.header('x-mailer') ?? '')) return null;
  const named: Array<{ recipient: string; line: string }> = [];
  const response: string[] = [];
  let inResponse = false;
  for (const line of linesBefore(message.text, /^\s*Original message follows\.?\s*$/im)) {
    const match = RECIPIENT_LINE.exec(line);
    // "Original Sender: <…>" and the like name the sender, not a failed recipient.
    const recipient = match && !/sender|from/i.test(match[1] ?? '') ? firstAddress(match[2]!) : null;
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
