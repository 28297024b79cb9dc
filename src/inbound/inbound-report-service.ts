import { createHash } from 'node:crypto';
import { nowIso } from '../lib/ids.js';
import { reportedBounceSubtype } from './bounce-subtype.js';
import { isComplaintFeedback } from './feedback-report.js';
import { findReplyCode } from './smtp-text.js';
import { parseInboundMessage, type InboundResult, type ParsedReport } from './parse-report.js';
import { reportTarget, type ReportTarget } from './report-target.js';
import type { ReturnPathSigner } from './return-path.js';
import type { Repositories, Store } from '../db/store.js';
import type { LogEntryRow } from '../logs/index.js';
import { normalizeAddress } from '../lib/email-address.js';
import { moveSendEntry, recordBounce, recordComplaintOnce, recordSoftBounce, type StatusChange } from '../sending/index.js';
import { allRecipientsOf } from '../lib/message-recipients.js';
import type { Metrics } from '../observability/index.js';

/** What one result of a report did: moved an entry, was a repeat, or found nothing to act on (and why). */
export interface AppliedResult {
  recipient: string | null;
  kind: InboundResult['kind'];
  effect: StatusChange | 'recorded' | 'ignored';
  /** Why an `ignored` result was not acted on, when it was about someone. */
  reason?: string;
}

/** A report read from a message: what the parser found, and the SHA-256 of the message's bytes (hex), which a repeat shares. */
export interface ReceivedReport {
  report: ParsedReport;
  id: string;
}

export interface InboundVerdict {
  /** `duplicate`: these bytes were processed before; `ignored`: the report may speak for no recipient (`reason` says why). */
  outcome: 'recorded' | 'duplicate' | 'ignored';
  messageId: string | null;
  /** The recipient its signed return path speaks for. */
  recipient: string | null;
  reason?: string;
  results: AppliedResult[];
  /** The parser could not read the report (ParsedReport.unreadable): it was taken for ordinary mail. */
  unreadable?: string;
}

/** The error detail a bounce keeps: the diagnostic as found, led by the status code when it does not say it. */
function bounceDetail(result: InboundResult): string {
  const { status, diagnostic } = result;
  if (!diagnostic) return status ? `Status ${status}` : 'Bounced';
  return status && !diagnostic.includes(status) ? `${status} ${diagnostic}` : diagnostic;
}

/**
 * A refusal the report says is final (a 5.x.x status, or a 5xx reply where it
 * gives none): the reporting MTA has given up. A soft one (content, policy,
 * size, a full mailbox) is a refusal of this message, not of the address.
 */
function isFinal(result: InboundResult): boolean {
  return result.status ? result.status.startsWith('5') : (findReplyCode(result.diagnostic) ?? '').startsWith('5');
}

/** The entry bounced (with its `bounce` entry, once), and the subtype of the refusal table's vocabulary. */
function bounce(repos: Repositories, entry: LogEntryRow, result: InboundResult, hard: boolean, now: string): Promise<StatusChange> {
  return recordBounce(repos, entry, bounceDetail(result), reportedBounceSubtype(result.status, result.diagnostic, hard), now);
}

async function apply(repos: Repositories, entry: LogEntryRow, result: InboundResult, now: string): Promise<AppliedResult['effect']> {
  switch (result.kind) {
    case 'delivered':
      return moveSendEntry(repos, entry, { to: 'delivered', detail: null }, now);
    case 'hard_bounce':
      return bounce(repos, entry, result, true, now);
    case 'soft_bounce': {
      // Refused for good, but not the address: bounced, not suppressed (its subtype is not a hard one).
      if (isFinal(result)) return bounce(repos, entry, result, false, now);
      return recordSoftBounce(repos, entry, bounceDetail(result), now);
    }
    case 'complaint':
      return recordComplaintOnce(repos, entry, result.feedback_type ?? 'abuse', now);
    default:
      return 'ignored'; // an auto-reply, or an ordinary message: not a bounce
  }
}

/** Acts on each result of a report that may speak for `target`'s recipient, and on no one else. */
async function act(repos: Repositories, report: ParsedReport, target: Extract<ReportTarget, { ok: true }>, now: string): Promise<InboundVerdict> {
  const message = await repos.messages.find(target.messageId);
  const recipient = message ? allRecipientsOf(message)[target.recipientIndex]?.address : undefined;
  const entry = recipient ? (await repos.logs.listSendEntries([target.messageId])).find((e) => e.recipient === recipient) : undefined;
  if (!entry) return { outcome: 'ignored', messageId: target.messageId, recipient: null, reason: 'its return path names no recipient of a message here', results: [] };

  const results: AppliedResult[] = [];
  for (const result of report.results) {
    // A report that names no one (a redacted complaint) is about the one recipient its return path speaks for.
    if (result.recipient !== null && normalizeAddress(result.recipient) !== normalizeAddress(entry.recipient)) {
      const reason = `the report names ${result.recipient}, but its return path speaks only for ${entry.recipient}`;
      results.push({ recipient: result.recipient, kind: result.kind, effect: 'ignored', reason });
      continue;
    }
    if (result.kind === 'complaint' && !isComplaintFeedback(result.feedback_type)) {
      const reason = `a feedback report of type ${result.feedback_type} is no complaint: nothing is recorded against the recipient`;
      results.push({ recipient: result.recipient, kind: result.kind, effect: 'ignored', reason });
      continue;
    }
    results.push({ recipient: result.recipient, kind: result.kind, effect: await apply(repos, entry, result, now) });
  }
  return { outcome: 'recorded', messageId: target.messageId, recipient: entry.recipient, results };
}

/**
 * Acts on an inbound report (a DSN, a bounce in an MTA's own format, an ARF
 * complaint), received by the inbound SMTP server or read from a file, for
 * the one recipient its signed return path speaks for (report-target.ts):
 * each result about that recipient moves its `send` entry (delivered,
 * bounced), records a `bounce` or `complaint` entry, or adds to the attempt
 * history (soft bounce), all through the event path (which also keeps the
 * suppression list), in one transaction with the record that the report was
 * processed and what it came to. Results about anyone else are ignored, and
 * the verdict says why.
 */
export function createInboundReportService(store: Store, signer: ReturnPathSigner, metrics?: Pick<Metrics, 'inboundReport'>) {
  /** Acts on a report already read (the inbound receiver reads them on a thread of its own). */
  async function recordReceived({ report, id }: ReceivedReport, rcptTo: string[]): Promise<InboundVerdict> {
    const target = reportTarget(report, rcptTo, signer);
    const now = nowIso();
    const verdict = await store.transaction(async (repos): Promise<InboundVerdict> => {
      const first = await repos.inboundReports.claim({ id, message_id: target.messageId, summary: JSON.stringify(report.results), received_at: now });
      if (!first) return { outcome: 'duplicate', messageId: target.messageId, recipient: null, results: [] };
      const verdict: InboundVerdict = target.ok
        ? await act(repos, report, target, now)
        : { outcome: 'ignored', messageId: target.messageId, recipient: null, reason: target.reason, results: [] };
      if (report.unreadable) verdict.unreadable = report.unreadable;
      await repos.inboundReports.recordVerdict(id, JSON.stringify(verdict));
      return verdict;
    });
    metrics?.inboundReport(verdict);
    return verdict;
  }

  return {
    recordReceived,
    /** Reads the report from the whole message on the calling thread, then acts on it. */
    async record(raw: Buffer, rcptTo: string[]): Promise<InboundVerdict> {
      return recordReceived({ report: await parseInboundMessage(raw), id: createHash('sha256').update(raw).digest('hex') }, rcptTo);
    },
  };
}
