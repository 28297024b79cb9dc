import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { publishEvents } from '../../events/index.js';
import type { MessageEvent } from '../../events/index.js';
import { nowIso } from '../../lib/ids.js';
import type { Store } from '../../db/store.js';
import { moveSendEntry } from '../send-status-service.js';

/** The error every canceled recipient's entry carries (issue 16, point 8). */
export const CANCELED_BEFORE_SENDING = 'Canceled before sending';

/** POST /v1/messages/{id}/cancel's answer. */
export interface CancelResult {
  message_id: string;
  /** The recipients whose entries moved from `sent` to `failed` (those suppressed at acceptance keep their status). */
  canceled_recipients: number;
  canceled_at: string;
}

/**
 * Cancels a scheduled send before it is due: its job is ended before any
 * attempt, and every recipient still `sent` becomes `failed` with
 * `Canceled before sending` and its `failed` event (webhooks included), all
 * in one transaction. SPEC.md's statuses are unchanged: a canceled send is
 * one that failed before reaching the provider.
 */
export function createCancelService(store: Store) {
  return {
    async cancel(workspaceId: string, messageId: string): Promise<CancelResult> {
      return store.transaction(async (repos) => {
        const message = await repos.messages.find(messageId);
        // Another workspace's message is as unknown as one that does not exist.
        if (!message || message.workspace_id !== workspaceId) throw new NotFoundError('Message not found');
        if (message.scheduled_at === null) throw new ConflictError('Only a scheduled message can be canceled; this one was sent at once');
        const now = nowIso();
        if (!(await repos.deliveryJobs.cancelBeforeDue(messageId, CANCELED_BEFORE_SENDING, now))) {
          const job = await repos.messages.findJobByMessage(messageId);
          if (job?.last_error === CANCELED_BEFORE_SENDING) throw new ConflictError('This message was already canceled');
          throw new ConflictError('This message is already due and can no longer be canceled');
        }
        const events: MessageEvent[] = [];
        let canceled = 0;
        for (const entry of await repos.logs.listSendEntries([messageId])) {
          if (entry.status !== 'sent') continue;
          const change = await moveSendEntry(repos, entry, { to: 'failed', detail: CANCELED_BEFORE_SENDING }, now, { into: events });
          if (change === 'move') canceled += 1;
        }
        await publishEvents(repos, events);
        return { message_id: messageId, canceled_recipients: canceled, canceled_at: now };
      });
    },
  };
}
