import { failedFinding, failedRecipientsHeader, returnedRecipient } from './generic-readers.js';
import type { MimeMessage } from './mime-message.js';
import { bounceSignals, DELAY_WARNING, reportSection } from './mta-formats.js';
import { addressesIn } from './smtp-text.js';
import type { BounceReading } from './types.js';

/**
 * The last reader of bounces, for a report in a layout no other reader
 * knows: it looks for what every bounce quotes, an SMTP reply (`550 …`) or
 * an enhanced status code (`5.1.1`), anywhere in the text, the text
 * attachments or a delivery-status part the DSN reader could not read, and
 * makes a recipient of the address on (or next to) each line that quotes one.
 *
 * Only a message that shows itself a report is scanned: a mailer daemon's
 * sender, a bounce's subject or wording, a `multipart/report`, an
 * `X-Failed-Recipients` header or an `Auto-Submitted` header that is not
 * `no`. A person's mail quoting an error, a mailing list's, or an
 * auto-reply stays what it is.
 */

/** A line quoting a remote's reply or a status: `550 5.1.1 …`, `550-…`, `#5.1.1`, `said: 554 …`, `Status: 5.2.2`. */
const EVIDENCE_LINE = /(?:^|[\s:(>[])[45]\d\d[ -]|(?:^|[\s(#])[45]\.[0-7]\.\d{1,3}\b/;
/** The same, said strongly enough to be read in a message that only hints at being a report. */
const REPLY_WITH_STATUS = /\b([45])\d\d[ -]#?\1\.[0-7]\.\d{1,3}\b/;
const MAX_LINES = 2000;

export function scanForFailures(message: MimeMessage): BounceReading | null {
  const report = reportSection(message.text);
  const signals = bounceSignals(message, report);
  const failedHeader = failedRecipientsHeader(message);
  const autoSubmitted = (message.header('auto-submitted') ?? 'no').trim().toLowerCase();
  const listMail = message.header('list-id') !== null;
  const reportLike = signals.sender || signals.subject || signals.body || failedHeader.length > 0 || message.contentType === 'multipart/report';
  if (listMail || (!reportLike && autoSubmitted.startsWith('no'))) return null;

  const texts = [report, ...message.deliveryStatus, ...message.attachedText];
  const lines = texts.flatMap((text) => text.split('\n')).slice(0, MAX_LINES);
  const strong = lines.some((line) => REPLY_WITH_STATUS.test(line));
  // An Auto-Submitted header alone (an auto-reply's, a notification's) needs a reply with its status code.
  if (!reportLike && !strong) return null;

  const own = new Set([message.fromAddress, ...addressesIn(message.headers('to').join(' '))].filter(Boolean));
  const byRecipient = new Map<string | null, string[]>();
  // Looked up once, not for each line: it reads the returned message (or the text after the report).
  let returned: string | null | undefined;
  lines.forEach((line, i) => {
    if (!EVIDENCE_LINE.test(line)) return;
    const near = [line, lines[i - 1] ?? '', lines[i + 1] ?? ''].flatMap((l) => addressesIn(l)).find((a) => !own.has(a));
    const recipient = near ?? (failedHeader.length === 1 ? failedHeader[0]! : (returned === undefined ? (returned = returnedRecipient(message)) : returned));
    const said = byRecipient.get(recipient);
    if (said) said.push(line.trim());
    else byRecipient.set(recipient, [line.trim()]);
  });
  if (!byRecipient.size) return null;

  const temporary = DELAY_WARNING.test(report);
  const findings = [...byRecipient].map(([recipient, said]) => failedFinding(recipient, said.join(' '), null, temporary));
  // Lines that named no one are about the report's one recipient, when it names exactly one.
  const named = findings.filter((f) => f.recipient !== null);
  return { findings: named.length ? named : findings, dsn: null };
}
