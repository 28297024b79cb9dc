import type { MimeMessage } from '../mime-message.js';
import { addressesIn, firstAddress } from '../smtp-text.js';
import type { BounceReading } from '../types.js';
import { failedFinding, receivedVia, reasonByWording, type Wordings } from './family-finding.js';

/**
 * Verizon Wireless's e-mail-to-SMS and MMS gateways. vtext.com's notices
 * (from post_master@vtext.com) give the reply after "Error:" and the
 * envelope under "Message details:" ("  RCPT TO: 5551234567@vtext.com");
 * vzwpix.com's (from a sysadmin@ address) say "Message could not be
 * delivered to mobile." with "Error: No valid recipients for this MM" and the
 * original's headers ("To: …") below. Both errors mean the number has no
 * mailbox there.
 */

const VERIZON_WORDINGS: Wordings = [['userunknown', ['no such user', 'no valid recipients for this mm', 'not a valid recipient', 'invalid recipient']]];

const VERIZON_SENDER = /^(?:post_master@vtext\.com|sysadmin@[a-z0-9.-]*vzwpix\.com)$/i;

export function readVerizon(message: MimeMessage): BounceReading | null {
  const sender = message.fromAddress ?? '';
  if (!VERIZON_SENDER.test(sender) && !(receivedVia(message, /\.(?:vtext|vzwpix)\.com\b/i) && /^(?:post_master|sysadmin)@/i.test(sender))) return null;
  const lines = message.text.split('\n');

  const errors = lines.flatMap((line) => {
    const error = /^\s*Error:\s*(.+)$/i.exec(line)?.[1]?.trim();
    const reply = /^\s*[45]\d\d\s+-\s+.+$/.exec(line)?.[0].trim();
    return error ? [error] : reply ? [reply] : [];
  });
  // vtext.com names the envelope recipient; vzwpix.com only the original's To.
  const envelope = lines.flatMap((line) => (/^\s*RCPT TO:\s*(.+)$/i.exec(line) ? addressesIn(line) : []));
  const quotedTo = lines.flatMap((line) => (/^\s*To:\s*(.+)$/i.exec(line) ? [firstAddress(line)].filter((a): a is string => a !== null) : []));
  const recipients = [...new Set(envelope.length ? envelope : quotedTo)];
  if (!recipients.length) return null;

  const diagnostic = errors.join(' ') || null;
  const reason = reasonByWording(VERIZON_WORDINGS, diagnostic);
  return { findings: recipients.map((recipient) => failedFinding(recipient, diagnostic, reason)), dsn: null };
}
