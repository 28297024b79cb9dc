import type { MimeMessage } from '../mime-message.js';
import { firstAddress } from '../smtp-text.js';
import type { BounceReading, SmtpCommand } from '../types.js';
import { failedFinding } from './family-finding.js';

/**
 * Trend Micro InterScan Messaging Security (and Trend Vision One's email
 * security, which writes the same): from "InterScan MSS" or "InterScan
 * Notification", subject "Mail could not be delivered" (or its Japanese
 * editions), and a transcript of the failed session:
 *
 *     Sent <<< RCPT TO:<ada@example.net>
 *     Received >>> 550 5.1.1 <ada@example.net>... User unknown
 *
 * or "Unable to deliver message to <ada@example.net>" when the recipient was
 * refused before any session, which InterScan writes for addresses its
 * directory does not know.
 */

// \u30e1\u30c3\u30bb\u30fc\u30b8\u3092\u914d\u4fe1\u3067\u304d\u307e\u305b\u3093: "the message could not be delivered"; \u30e1\u30fc\u30eb\u914d\u4fe1\u306b\u5931\u6557: "mail delivery failed".
const INTERSCAN_SUBJECT = /^\s*(?:Mail could not be delivered|\u30e1\u30c3\u30bb\u30fc\u30b8\u3092\u914d\u4fe1\u3067\u304d\u307e\u305b\u3093|\u30e1\u30fc\u30eb\u914d\u4fe1\u306b\u5931\u6557)/i;
const SENT = /^\s*Sent\s+<<<\s+(.+)$/i;
const RECEIVED = /^\s*Received\s+>>>\s+(.+)$/i;
const UNABLE = /\bUnable to deliver (?:the )?message to\s+<?([^\s<>]+@[^\s<>]+)>?/i;

interface Exchange {
  recipient: string;
  command: SmtpCommand | null;
  replies: string[];
}

export function readInterScan(message: MimeMessage): BounceReading | null {
  if (!/^"?InterScan (?:MSS|Notification)/i.test(message.fromName) && !INTERSCAN_SUBJECT.test(message.subject)) return null;
  const exchanges: Exchange[] = [];
  for (const line of message.text.split('\n')) {
    const sent = SENT.exec(line)?.[1];
    const received = RECEIVED.exec(line)?.[1];
    const unable = UNABLE.exec(line);
    const address = unable?.[1]?.toLowerCase() ?? firstAddress(sent ?? received ?? '');
    let current = exchanges[exchanges.length - 1];
    if (address && address !== current?.recipient) {
      current = { recipient: address, command: null, replies: [] };
      exchanges.push(current);
    }
    if (!current) continue;
    if (sent) current.command = /^(RCPT|MAIL|DATA)\b/i.exec(sent)?.[1]?.toUpperCase() as SmtpCommand | undefined ?? current.command;
    if (received || unable) current.replies.push((received ?? line).trim());
  }
  const findings = exchanges.map((exchange) => {
    const finding = failedFinding(exchange.recipient, exchange.replies.join(' ') || null);
    finding.command = exchange.command ?? finding.command;
    // Refused by InterScan's own directory, before any session: it knows no such recipient.
    if (!finding.status && UNABLE.test(finding.diagnostic ?? '')) finding.reason = 'userunknown';
    return finding;
  });
  return findings.length ? { findings, dsn: null } : null;
}
