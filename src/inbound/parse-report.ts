import { storableTexts } from '../lib/external-text.js';
import { readSesNotification } from './amazon-ses.js';
import { detectAutoReply } from './auto-reply.js';
import { classifyFinding } from './bounce-classifier.js';
import { envelopeIdOf, originalMessageIdOf, returnPathsIn } from './correlation.js';
import { readFamilyReport } from './family-readers.js';
import { readComplaint } from './feedback-report.js';
import { findingsFromText, readDeliveryStatus } from './generic-readers.js';
import { scanForFailures } from './generic-scan.js';
import { readMimeMessage, type MimeMessage } from './mime-message.js';
import { reportInside } from './nested-report.js';
import { collapse } from './smtp-text.js';
import type { BounceFinding, BounceReading, InboundResult, ParsedReport } from './types.js';

export type { InboundKind, InboundResult, ParsedReport } from './types.js';
export { messageIdFromReturnPath } from './correlation.js';

export interface ParseOptions {
  /** Family readers (`family-readers.ts`, by name) to leave out: `npm run inbound:quality` scores the generic layers so. */
  without?: ReadonlySet<string>;
}

/**
 * Reads an inbound message (a bounce, a delivery report, a complaint, an
 * auto-reply, or ordinary mail) into one result per recipient it reports on.
 * It never throws: bytes it cannot make sense of are ordinary mail (`none`).
 *
 * In order, the first that applies:
 * 1. a complaint: an ARF feedback report (RFC 5965, RFC 6591, and the
 *    variants mailbox providers send) or Microsoft JMRP;
 * 2. an Amazon SES notification (Bounce, Complaint, Delivery JSON);
 * 3. a bounce in a layout of its own that a family reader knows (Domino,
 *    PowerMTA, MessageLabs, Verizon, InterScan, IMail…);
 * 4. an RFC 3464 delivery status notification (`message/delivery-status`),
 *    its recipients completed with what the human-readable part says of them;
 * 5. a report attached whole to another message (a forwarded bounce);
 * 6. a bounce written as text (the common non-standard formats, or DSN fields
 *    copied into text), recognised by its sender, subject and wording;
 * 7. the generic scan: status codes and SMTP replies anywhere in a message
 *    that reads as a report (it also names the recipient a text bounce could not);
 * 8. an RFC 3834 auto-reply (vacation, out of office);
 * 9. anything else: one result of kind `none`.
 *
 * Classification (`bounce-classifier.ts`, `bounce-reasons.ts`) reads only the
 * report's own content: status codes, diagnostic text, the SMTP command answered.
 */
export async function parseInboundMessage(raw: Buffer, options: ParseOptions = {}): Promise<ParsedReport> {
  try {
    const message = await readMimeMessage(raw);
    const found = await readReport(message, options, 0);
    const reading = found.reading;
    // A NUL in a report's words (or in what it quotes to find the message) would fail its recording on
    // PostgreSQL, and the report with it: the sender would be told to try again, for good.
    return storableTexts({
      results: found.results ?? reading?.findings.map(toResult) ?? notABounce(message),
      originalMessageId: originalMessageIdOf(message, found.reportedMessageId ?? reading?.dsn?.originalMessageId ?? null),
      envelopeId: envelopeIdOf(message, reading?.dsn?.envelopeId ?? null, reading?.dsn?.sender ?? null),
      returnPaths: returnPathsIn(message, reading?.dsn?.sender ?? null),
    });
  } catch (error) {
    // Bytes no reader can take apart (or a reader's own fault) are no report: never an exception for the
    // receiver, but said, so that a reader's bug shows in the log (and fails the robustness test).
    const unreadable = error instanceof Error ? error.message : String(error);
    return { results: [ordinaryMail()], originalMessageId: null, envelopeId: null, returnPaths: [], unreadable };
  }
}

interface Found {
  /** Results ready-made (complaints, SES notifications). */
  results?: InboundResult[];
  reading?: BounceReading;
  reportedMessageId?: string | null;
}

/** A forwarded report inside a forwarded report is read; deeper nesting is not a report any MTA writes. */
const MAX_NESTING = 2;

async function readReport(message: MimeMessage, options: ParseOptions, depth: number): Promise<Found> {
  const complaints = readComplaint(message);
  if (complaints) return { results: complaints };

  const ses = readSesNotification(message);
  if (ses) {
    const results = [...ses.complaints, ...ses.findings.map(toResult)];
    if (results.length) return { results, reportedMessageId: ses.originalMessageId ? `<${ses.originalMessageId.replace(/^<|>$/g, '')}>` : null };
  }

  const reading = readFamilyReport(message, options.without) ?? readDeliveryStatus(message);
  if (reading) return { reading };

  // A report wrapped whole in another message says more than the wrapper's words about it.
  if (depth < MAX_NESTING) {
    const inner = await reportInside(message);
    if (inner) {
      const found = await readReport(inner, options, depth + 1);
      if (found.results || found.reading) return found;
    }
  }

  // A text bounce that names no one gives way to the scan, which may find the address beside the reply.
  const text = findingsFromText(message);
  if (text?.findings.some((f) => f.recipient !== null)) return { reading: text };
  const scanned = scanForFailures(message);
  const best = scanned?.findings.some((f) => f.recipient !== null) ? scanned : (text ?? scanned);
  return best ? { reading: best } : {};
}

/** No report: an auto-reply, or ordinary mail. */
function notABounce(message: MimeMessage): InboundResult[] {
  const auto = detectAutoReply(message);
  if (!auto) return [ordinaryMail()];
  return [{ recipient: message.fromAddress, kind: 'autoreply', status: null, diagnostic: auto.evidence, feedback_type: null, reason: 'vacation' }];
}

function ordinaryMail(): InboundResult {
  return { recipient: null, kind: 'none', status: null, diagnostic: null, feedback_type: null, reason: null };
}

const MAX_DIAGNOSTIC = 1000;

function toResult(finding: BounceFinding): InboundResult {
  const { kind, reason } = classifyFinding(finding);
  const diagnostic = finding.diagnostic ? collapse(finding.diagnostic).slice(0, MAX_DIAGNOSTIC) : null;
  return { recipient: finding.recipient, kind, status: finding.status, diagnostic, feedback_type: null, reason };
}
