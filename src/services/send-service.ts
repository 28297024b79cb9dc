import type { Config } from '../config.js';
import { newId, nowIso } from '../ids.js';
import type { LogEntryRow } from '../repositories/logs-repository.js';
import type { AcceptedSendWriter } from '../acceptance/accepted-sends.js';
import type { Store } from '../repositories/index.js';
import { eventAbout, type MessageEvent } from '../events/message-event.js';
import { domainOf } from './email-address.js';
import { parseSendRequest, type SendInput } from './send-request.js';
import { checkKeyDomain, checkSenderDomain, sendableDomains } from './sender-domain.js';

export interface SendResult {
  message_id: string;
  status: 'sent' | 'suppressed' | 'failed';
  /** Present when status is `failed`. */
  error?: string;
}

export function createSendService(store: Store, writer: AcceptedSendWriter, config: Pick<Config, 'provider'>, onAccepted?: () => void) {
  return {
    /**
     * Validates a send and records it durably before answering: the message, one
     * `send` log entry per recipient and, if anyone is to receive it, the outbox
     * row the delivery worker claims, all in one transaction (shared with the
     * sends accepted at the same moment, see accepted-send-writer.ts).
     */
    /** The domains this workspace may send from now (sender-domain.ts). */
    senderDomains: (workspaceId: string) => sendableDomains(store.domains, config, workspaceId),

    /** `keyDomainId`: the one domain the caller's API key may send from (null: any); refused with 403 before anything is recorded. */
    async accept(workspaceId: string, input: SendInput, keyDomainId: string | null = null): Promise<SendResult> {
      // Only the sandbox is known to take a non-ASCII local part (SMTPUTF8); a relay's support shows only at delivery.
      const request = parseSendRequest(input, { utf8LocalPart: config.provider === 'sandbox' });
      if (keyDomainId) await checkKeyDomain(store.domains, workspaceId, keyDomainId, domainOf(request.from.address));
      const senderDomain = await checkSenderDomain(store.domains, config, workspaceId, domainOf(request.from.address));
      const domainProblem = senderDomain.kind === 'refused' ? senderDomain.problem : null;

      const messageId = newId('msg');
      const now = nowIso();
      const events: MessageEvent[] = [];
      // Written `sent`, unless the sender may not send; the writer holds back suppressed recipients (holdBackSuppressed).
      // Cc and Bcc recipients get `send` entries like To's: each is a delivery of its own.
      const entries: LogEntryRow[] = [...request.to, ...request.cc, ...request.bcc].map((recipient) => {
        const entry: LogEntryRow = {
          id: newId('log'),
          workspace_id: workspaceId,
          message_id: messageId,
          type: 'send',
          status: domainProblem ? 'failed' : 'sent',
          recipient: recipient.address,
          from_email: request.from.address,
          subject: request.subject,
          error: domainProblem,
          created_at: now,
          updated_at: now,
        };
        if (domainProblem) events.push({ ...eventAbout(entry, 'failed', now), error: domainProblem });
        return entry;
      });

      const { queued } = await writer.write({
        message: {
          id: messageId,
          workspace_id: workspaceId,
          from_name: request.from.name,
          from_address: request.from.address,
          reply_to: request.replyTo.length > 0 ? JSON.stringify(request.replyTo) : null,
          subject: request.subject,
          html: request.html,
          text: request.text,
          recipients: JSON.stringify(request.to),
          cc: request.cc.length > 0 ? JSON.stringify(request.cc) : null,
          bcc: request.bcc.length > 0 ? JSON.stringify(request.bcc) : null,
          headers: request.headers.length > 0 ? JSON.stringify(request.headers) : null,
          created_at: now,
        },
        entries,
        job: domainProblem
          ? null
          : {
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
            },
        events,
      });

      if (queued) onAccepted?.();
      if (domainProblem) return { message_id: messageId, status: 'failed', error: domainProblem };
      return { message_id: messageId, status: queued ? 'sent' : 'suppressed' };
    },
  };
}
