import { nowIso } from '../ids.js';
import type { Store } from '../repositories/index.js';
import { judgeTransition, type SendStatus } from './send-status.js';

export type StatusChange = 'move' | 'duplicate' | 'refused' | 'unknown';

/**
 * Records an outcome for one recipient of one message (a delivery, a bounce,
 * a failure), moving its `send` entry along the transition table and the
 * stats counters with it, in one transaction. The worker and the inbound
 * parsers both come through here, so every source obeys the same table.
 */
export function createSendStatusService(store: Store) {
  return {
    /**
     * `move` when the entry moved; `duplicate` when it was already there (the
     * same report twice changes nothing); `refused` when the move would go
     * backward; `unknown` when there is no such recipient of such a message.
     */
    async record(messageId: string, recipient: string, to: SendStatus, error: string | null = null): Promise<StatusChange> {
      return store.transaction(async (repos) => {
        // Conditional moves, not locks: if a concurrent event moved the entry
        // between our read and our update, judge again from the new status.
        for (;;) {
          const entry = await repos.logs.findSendEntry(messageId, recipient);
          if (!entry) return 'unknown';
          const verdict = judgeTransition(entry.status as SendStatus, to);
          if (verdict !== 'move') return verdict;
          if (await repos.logs.moveStatus(entry, entry.status, to, error, nowIso())) return 'move';
        }
      });
    },
  };
}
