import type { Config } from '../config.js';
import type { LogStatus } from '../db/schema.js';
import { newId, nowIso } from '../ids.js';
import type { LogEntryRow } from '../repositories/logs-repository.js';
import type { AcceptedSendWriter } from '../repositories/accepted-sends.js';
import type { Store } from '../repositories/index.js';
import { eventAbout, type MessageEvent } from '../events/message-event.js';
import { domainOf, normalizeAddress } from './email-address.js';
import { parseSendRequest, type SendInput } from './send-request.js';
import { checkSenderDomain } from './sender-domain.js';

export interface SendResult {
  message_id: string;
  status: 'sent' | 'suppressed' | 'failed';
  /** Present when status is `failed`. */
  error?: string;
}

/** The error detail of a recipient held back by the suppression list, at acceptance or at delivery. */
export const suppressedError = (reason: string) => `Recipient is on the suppression list (${reason})`;

export function createSendService(store: Store, writer: AcceptedSendWriter, config: Pick<Config, 'provider'>, onAccepted?: () => void) {
  return {
    /**
     * Validates a send and records it durably before answering: the message, one
     * `send` log entry per recipient and, if anyone is to receive it, the outbox
     * row the delivery worker claims, all in one transaction (shared with the
     * sends accepted at the same moment, see accepted-send-writer.ts).
     */
    async accept(workspaceId: string, input: SendInput): Promise<SendResult> {
      const request = parseSendRequest(input);
      const senderDomain = await checkSenderDomain(store.domains, config, workspaceId, domainOf(request.from.address));
      const domainProblem = senderDomain.kind === 'refused' ? senderDomain.problem : null;
      const suppressed = domainProblem
        ? new Map<string, string>()
        : await store.suppressions.findSuppressed(workspaceId, request.to.map((r) => normalizeAddress(r.address)));

      const messageId = newId('msg');
      const now = nowIso();
      const events: MessageEvent[] = [];
      const entries: LogEntryRow[] = request.to.map((recipient) => {
        const reason = suppressed.get(normalizeAddress(recipient.address));
        const status: LogStatus = domainProblem ? 'failed' : reason !== undefined ? 'suppressed' : 'sent';
        const entry: LogEntryRow = {
          id: newId('log'),
          workspace_id: workspaceId,
          message_id: messageId,
          type: 'send',
          status,
          recipient: recipient.address,
          from_email: request.from.address,
          subject: request.subject,
          error: domainProblem ?? (reason !== undefined ? suppressedError(reason) : null),
          created_at: now,
          updated_at: now,
        };
        if (domainProblem) events.push({ ...eventAbout(entry, 'failed', now), error: domainProblem });
        else if (reason !== undefined) events.push({ ...eventAbout(entry, 'suppressed', now), reason });
        return entry;
      });
      const toDeliver = entries.some((e) => e.status === 'sent');

      await writer.write({
        message: {
          id: messageId,
          workspace_id: workspaceId,
          from_name: request.from.name,
          from_address: request.from.address,
          reply_to: request.replyTo ? JSON.stringify(request.replyTo) : null,
          subject: request.subject,
          html: request.html,
          text: request.text,
          recipients: JSON.stringify(request.to),
          created_at: now,
        },
        entries,
        job: toDeliver
          ? {
              id: newId('job'),
              message_id: messageId,
              workspace_id: workspaceId,
              state: 'pending',
              available_at: now,
              lease_owner: null,
              lease_expires_at: null,
              last_error: null,
              created_at: now,
              updated_at: now,
            }
          : null,
        events,
      });

      if (toDeliver) onAccepted?.();
      if (domainProblem) return { message_id: messageId, status: 'failed', error: domainProblem };
      return { message_id: messageId, status: toDeliver ? 'sent' : 'suppressed' };
    },
  };
}
