import { detectReason } from './bounce-classifier.js';
import { deliveryStatusInText, parseDeliveryStatus, type DsnReport } from './delivery-status.js';
import { headerBlock, type MimeMessage } from './mime-message.js';
import { bounceSignals, DELAY_WARNING, reportSection, returnedSection } from './mta-formats.js';
import { addressesIn, collapse, findCommand, findStatusCode } from './smtp-text.js';
import { errorLines, readBlock, recipientBlocks, textAfterIntro, type TextBlock } from './text-bounce.js';
import { emptyFinding, type BounceFinding, type BounceReading, type BounceReason } from './types.js';

/**
 * The generic readers of bounces: an RFC 3464 report (its recipients
 * completed from what the human-readable part says of them), and a bounce
 * written as text in any of the common MTAs' layouts (`mta-formats.ts`,
 * `text-bounce.ts`). Family readers (`family-readers.ts`) build on them.
 */

/** A recipient the report says failed (or is delayed), with what it says of it: status, command and reply read out of the text. */
export function failedFinding(recipient: string | null, diagnostic: string | null, reason: BounceReason | null = null, temporary = false): BounceFinding {
  const finding = emptyFinding(recipient);
  const text = diagnostic ? collapse(diagnostic) : null;
  finding.action = temporary ? 'delayed' : 'failed';
  finding.diagnostic = text || null;
  finding.status = findStatusCode(text);
  finding.command = findCommand(text);
  finding.temporary = temporary;
  finding.reason = reason;
  return finding;
}

/** The message's RFC 3464 report (its findings in the report's order), or null. */
export function readDeliveryStatus(message: MimeMessage): BounceReading | null {
  for (const part of message.deliveryStatus) {
    const dsn = parseDeliveryStatus(part);
    if (dsn) return findingsFromDsn(message, dsn);
  }
  return null;
}

/** A DSN's recipients, each completed from the human-readable text where the DSN is silent. */
export function findingsFromDsn(message: MimeMessage, dsn: DsnReport, reportText?: string): BounceReading {
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
export function findingsFromText(message: MimeMessage): BounceReading | null {
  const report = reportSection(message.text);
  const signals = bounceSignals(message, report);
  const failedHeader = failedRecipientsHeader(message);
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
      const finding = failedFinding(recipient, diagnostic, null, temporary);
      finding.command = findCommand(report);
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

/** The addresses of an `X-Failed-Recipients` header (Exim, Gmail), as many as it names. */
export function failedRecipientsHeader(message: MimeMessage): string[] {
  return message.headers('x-failed-recipients').flatMap((value) => addressesIn(value));
}

/** The one recipient of the returned message (its To), for a bounce that names none; null if not exactly one. */
export function returnedRecipient(message: MimeMessage): string | null {
  for (const part of message.returned) {
    const to = (headerBlock(part).get('to') ?? []).flatMap((value) => addressesIn(value));
    if (to.length) return to.length === 1 ? to[0]! : null;
  }
  const quoted = /^[ \t]*To:[ \t]*(.+)$/im.exec(returnedSection(message.text));
  const to = quoted ? addressesIn(quoted[1]!) : [];
  return to.length === 1 ? to[0]! : null;
}
