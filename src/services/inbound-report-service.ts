import { createHash } from 'node:crypto';
import { newId, nowIso } from '../ids.js';
import { hardBounceSubtype } from '../inbound/bounce-subtype.js';
import { messageIdFromReturnPath, parseInboundMessage, type InboundResult, type ParsedReport } from '../inbound/parse-report.js';
import type { Repositories, Store } from '../repositories/index.js';
import type { LogEntryRow } from '../repositories/logs-repository.js';
import { normalizeAddress } from './email-address.js';
import { moveSendEntry, recordComplaint, type StatusChange } from './send-status-service.js';

/** What one result of a report did: moved an entry, was a repeat, or found nothing to act on. */
export interface AppliedResult {
  recipient: string | null;
  kind: InboundResult['kind'];
  effect: StatusChange | 'recorded' | 'ignored';
}

export interface InboundVerdict {
  /** `duplicate`: these bytes were processed before; `uncorrelated`: no Mailroom message could be found for it. */
  outcome: 'recorded' | 'duplicate' | 'uncorrelated';
  messageId: string | null;
  results: AppliedResult[];
}

const MESSAGE_ID = /^msg_[0-9a-z]{26}$/;

/**
 * The Mailroom message a report is about: the VERP return path it was sent to
 * first (it cannot be forged by the report's content), then the DSN envelope id
 * (Mailroom sends its message id as ENVID), then the original Message-ID
 * (`<msg_…@domain>`) in the returned headers.
 */
export function correlate(report: ParsedReport, rcptTo: string[]): string | null {
  for (const address of rcptTo) {
    const id = messageIdFromReturnPath(address)?.toLowerCase();
    if (id && MESSAGE_ID.test(id)) return id;
  }
  const envelopeId = report.envelopeId?.toLowerCase();
  if (envelopeId && MESSAGE_ID.test(envelopeId)) return envelopeId;
  const local = /^<([^@>]+)@/.exec(report.originalMessageId ?? '')?.[1]?.toLowerCase();
  return local && MESSAGE_ID.test(local) ? local : null;
}

/** The error detail a bounce keeps: the diagnostic as found, led by the status code when it does not say it. */
function bounceDetail(result: InboundResult): string {
  const { status, diagnostic } = result;
  if (!diagnostic) return status ? `Status ${status}` : 'Bounced';
  return status && !diagnostic.includes(status) ? `${status} ${diagnostic}` : diagnostic;
}

async function apply(repos: Repositories, entry: LogEntryRow, result: InboundResult, now: string): Promise<AppliedResult['effect']> {
  switch (result.kind) {
    case 'delivered':
      return moveSendEntry(repos, entry, { to: 'delivered', detail: null }, now);
    case 'hard_bounce': {
      const detail = bounceDetail(result);
      const change = await moveSendEntry(repos, entry, { to: 'bounced', detail, bounceSubtype: hardBounceSubtype(result.status, result.diagnostic) }, now);
      if (change === 'move') {
        await repos.logs.insertMany([{ ...entry, id: newId('log'), type: 'bounce', status: 'bounced', error: detail, created_at: now, updated_at: now }]);
      }
      return change;
    }
    case 'soft_bounce': {
      // Attempt history only: a soft bounce may pass next time, the status stays.
      const job = await repos.messages.findJobByMessage(entry.message_id);
      await repos.deliveryAttempts.insertMany([
        {
          id: newId('att'), workspace_id: entry.workspace_id, message_id: entry.message_id, recipient: entry.recipient,
          attempt: Number(job?.attempts ?? 0), provider: 'inbound', outcome: 'temporary', detail: bounceDetail(result), duration_ms: null, created_at: now,
        },
      ]);
      return 'recorded';
    }
    case 'complaint': {
      if (await repos.logs.findSendEntry(entry.message_id, entry.recipient, 'complaint')) return 'duplicate';
      await recordComplaint(repos, entry, result.feedback_type ?? 'abuse', now);
      return 'move';
    }
    default:
      return 'ignored'; // an auto-reply, or an ordinary message: not a bounce
  }
}

/**
 * Acts on an inbound report (a DSN, a bounce in an MTA's own format, an ARF
 * complaint), received by the inbound SMTP server or read from a file: each
 * recipient's result moves its `send` entry (delivered, bounced), records a
 * `bounce` or `complaint` entry, or adds to the attempt history (soft
 * bounce), all through the event path (which also keeps the suppression
 * list), in one transaction with the record that the report was processed.
 */
export function createInboundReportService(store: Store) {
  return {
    async record(raw: Buffer, rcptTo: string[]): Promise<InboundVerdict> {
      const report = await parseInboundMessage(raw);
      const messageId = correlate(report, rcptTo);
      const now = nowIso();
      return store.transaction(async (repos) => {
        const first = await repos.inboundReports.claim({
          id: createHash('sha256').update(raw).digest('hex'),
          message_id: messageId,
          summary: JSON.stringify(report.results),
          received_at: now,
        });
        if (!first) return { outcome: 'duplicate', messageId, results: [] };
        const entries = messageId ? await repos.logs.listSendEntries([messageId]) : [];
        if (entries.length === 0) return { outcome: 'uncorrelated', messageId, results: [] };

        const results: AppliedResult[] = [];
        for (const result of report.results) {
          // A report that names no recipient (a redacted complaint) is about the only one, if there is only one.
          const entry = result.recipient
            ? entries.find((e) => normalizeAddress(e.recipient) === normalizeAddress(result.recipient!))
            : entries.length === 1 ? entries[0] : undefined;
          results.push({ recipient: result.recipient, kind: result.kind, effect: entry ? await apply(repos, entry, result, now) : 'ignored' });
        }
        return { outcome: 'recorded', messageId, results };
      });
    },
  };
}
