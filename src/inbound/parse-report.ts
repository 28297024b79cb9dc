import { readSesNotification } from './amazon-ses.js';
import { detectAutoReply } from './auto-reply.js';
import { classifyFinding, detectReason } from './bounce-classifier.js';
import { envelopeIdOf, originalMessageIdOf, returnPathsIn } from './correlation.js';
import { deliveryStatusInText, parseDeliveryStatus, type DsnReport } from './delivery-status.js';
import { readComplaint } from './feedback-report.js';
import { headerBlock, readMimeMessage, type MimeMessage } from './mime-message.js';
import { bounceSignals, DELAY_WARNING, reportSection, returnedSection } from './mta-formats.js';
import { addressesIn, collapse, findCommand, findStatusCode } from './smtp-text.js';
import { errorLines, readBlock, recipientBlocks, textAfterIntro, type TextBlock } from './text-bounce.js';
import { emptyFinding, type BounceFinding, type InboundResult, type ParsedReport } from './types.js';

export type { InboundKind, InboundResult, ParsedReport } from './types.js';
export { messageIdFromReturnPath } from './correlation.js';

/**
 * Reads an inbound message (a bounce, a delivery report, a complaint, an
 * auto-reply, or ordinary mail) into one result per recipient it reports on.
 *
 * In order, the first that applies:
 * 1. a complaint: an ARF feedback report (RFC 5965) or Microsoft JMRP;
 * 2. an Amazon SES notification (Bounce, Complaint, Delivery JSON);
 * 3. an RFC 3464 delivery status notification (`message/delivery-status`),
 *    its recipients completed with what the human-readable part says of them;
 * 4. a bounce written as text (the common non-standard formats, or DSN fields
 *    copied into text), recognised by its sender, subject and wording;
 * 5. an RFC 3834 auto-reply (vacation, out of office);
 * 6. anything else: one result of kind `none`.
 *
 * Classification (`bounce-classifier.ts`) reads only the report's own content:
 * status codes, diagnostic text, the SMTP command answered.
 */
export async function parseInboundMessage(raw: Buffer): Promise<ParsedReport> {
  const message = await readMimeMessage(raw);
  let envelopeId: string | null = null;
  let reportedSender: string | null = null;
  let reportedMessageId: string | null = null;
  let results: InboundResult[] | null = readComplaint(message);

  if (!results && /"(?:notificationType|eventType)"/.test(message.text)) {
    const ses = readSesNotification(message.text);
    if (ses) {
      results = [...ses.complaints, ...ses.findings.map(toResult)];
      reportedMessageId = ses.originalMessageId ? `<${ses.originalMessageId.replace(/^<|>$/g, '')}>` : null;
    }
  }

  if (!results) {
    const dsn = message.deliveryStatus.map(parseDeliveryStatus).find((report) => report !== null) ?? null;
    const bounce = dsn ? findingsFromDsn(message, dsn) : findingsFromText(message);
    if (bounce) {
      results = bounce.findings.map(toResult);
      envelopeId = bounce.dsn?.envelopeId ?? null;
      reportedSender = bounce.dsn?.sender ?? null;
      reportedMessageId = bounce.dsn?.originalMessageId ?? null;
    }
  }

  if (!results) {
    const auto = detectAutoReply(message);
    results = [{ recipient: auto ? message.fromAddress : null, kind: auto ? 'autoreply' : 'none', status: null, diagnostic: auto?.evidence ?? null, feedback_type: null }];
  }

  return {
    results,
    originalMessageId: originalMessageIdOf(message, reportedMessageId),
    envelopeId: envelopeIdOf(message, envelopeId, reportedSender),
    returnPaths: returnPathsIn(message, reportedSender),
  };
}

const MAX_DIAGNOSTIC = 1000;

function toResult(finding: BounceFinding): InboundResult {
  const { kind } = classifyFinding(finding);
  const diagnostic = finding.diagnostic ? collapse(finding.diagnostic).slice(0, MAX_DIAGNOSTIC) : null;
  return { recipient: finding.recipient, kind, status: finding.status, diagnostic, feedback_type: null };
}

interface BounceReading {
  findings: BounceFinding[];
  dsn: DsnReport | null;
}

/** A DSN's recipients, each completed from the human-readable text where the DSN is silent. */
function findingsFromDsn(message: MimeMessage, dsn: DsnReport, reportText?: string): BounceReading {
  const report = reportText ?? reportSection(message.text);
  const blocks = recipientBlocks(report);
  const errors = errorLines(report);
  const single = dsn.recipients.length === 1;
  const findings = dsn.recipients.map((r) => {
    const block = blocks.find((b) => b.recipient === r.recipient) ?? (single && blocks.length === 1 ? blocks[0] : undefined);
    const reading = block ? readBlock(block, single ? errors : []) : null;
    const finding = emptyFinding(r.recipient ?? block?.recipient ?? null);
    finding.action = r.action;
    finding.diagnosticType = r.diagnosticType;
    finding.diagnostic = r.diagnostic ?? reading?.diagnostic ?? (single && errors.length ? errors.join(' ') : null);
    if (!r.diagnostic) finding.context = reading?.context ?? null;
    // The most precise code wins: the remote server's own, then the DSN's unless it is a bare x.0.0, then the text's.
    const dsnStatus = r.status && !/^\d\.0\.0$/.test(r.status) ? r.status : null;
    finding.status = findStatusCode(r.diagnostic) ?? dsnStatus ?? reading?.status ?? r.status ?? null;
    finding.command = findCommand(r.diagnostic) ?? reading?.command ?? (single ? findCommand(report) : null);
    finding.temporary = r.action === 'delayed';
    return finding;
  });
  return { findings, dsn };
}

/** A bounce written as text; null when the message does not read as one. */
function findingsFromText(message: MimeMessage): BounceReading | null {
  const report = reportSection(message.text);
  const signals = bounceSignals(message, report);
  const failedHeader = message.headers('x-failed-recipients').flatMap((value) => addressesIn(value));
  // A mailer daemon's address, a failed-recipients header or a DSN content type say so; a subject says so only with the text.
  const looksLikeBounce = signals.sender || failedHeader.length > 0 || message.reportType === 'delivery-status' || (signals.subject && signals.body);
  if (!looksLikeBounce && !signals.body) return null;

  // DSN fields copied into the text: a forwarded bounce, or a provider's "technical report".
  const inText = deliveryStatusInText(message.text);
  if (inText) {
    const fieldsStart = report.search(/^(?:Reporting-MTA|Original-Envelope-Id|Final-Recipient|Original-Recipient)[ \t]*:/im);
    return findingsFromDsn(message, inText, fieldsStart >= 0 ? report.slice(0, fieldsStart) : report);
  }

  const blocks = recipientBlocks(report);
  if (!looksLikeBounce && !blocks.length) return null;
  const errors = errorLines(report);
  const temporary = DELAY_WARNING.test(report) || /\bdelay(?:ed)?\b|\bwarning\b/i.test(message.subject);
  const single = blocks.length === 1;
  const findings: BounceFinding[] = blocks.map((block: TextBlock) => {
    const reading = readBlock(block, single ? errors : []);
    const finding = emptyFinding(block.recipient);
    finding.action = temporary ? 'delayed' : 'failed';
    finding.diagnostic = reading.diagnostic;
    finding.context = reading.context;
    finding.status = reading.status;
    finding.command = reading.command ?? (single ? findCommand(report) : null);
    finding.temporary = temporary;
    return finding;
  });

  if (!findings.length && looksLikeBounce) {
    // A bounce that names no recipient in its text: the X-Failed-Recipients header (Exim, Gmail) may.
    // Without it, the text must at least read as a failure report.
    if (!failedHeader.length && !signals.body && !errors.length) return null;
    const diagnostic = errors.length ? errors.join(' ') : textAfterIntro(report) || null;
    const named = failedHeader.length ? [...new Set(failedHeader)] : [returnedRecipient(message)];
    for (const recipient of named) {
      const finding = emptyFinding(recipient);
      finding.action = temporary ? 'delayed' : 'failed';
      finding.diagnostic = diagnostic;
      finding.status = findStatusCode(diagnostic);
      finding.command = findCommand(report);
      finding.temporary = temporary;
      findings.push(finding);
    }
  }

  const confirmed = failedHeader.length > 0 || message.reportType === 'delivery-status' || (signals.sender && (signals.subject || signals.body));
  if (!confirmed) {
    // One sign alone: keep only what reads as a failure, about someone other than the sender.
    const failures = findings.filter((f) => f.recipient !== message.fromAddress && detectReason(f) !== 'undefined');
    return failures.length ? { findings: failures, dsn: null } : null;
  }
  return findings.length ? { findings, dsn: null } : null;
}

/** The one recipient of the returned message (its To), for a bounce that names none; null if not exactly one. */
function returnedRecipient(message: MimeMessage): string | null {
  for (const part of message.returned) {
    const to = (headerBlock(part).get('to') ?? []).flatMap((value) => addressesIn(value));
    if (to.length) return to.length === 1 ? to[0]! : null;
  }
  const quoted = /^[ \t]*To:[ \t]*(.+)$/im.exec(returnedSection(message.text));
  const to = quoted ? addressesIn(quoted[1]!) : [];
  return to.length === 1 ? to[0]! : null;
}
