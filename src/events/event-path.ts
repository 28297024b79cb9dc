import type { Repositories } from '../db/store.js';
import { eventPayload, type MessageEvent } from './message-event.js';

/** Something that acts on events inside the transaction that records them (webhook fan-out, the suppression list, …). */
export type EventHandler = (repos: Repositories, events: MessageEvent[]) => Promise<void>;

declare module '../db/store.js' {
  interface Repositories {
    /**
     * What acts on events inside the transaction that records them, in order. A fixed list the
     * composition root gives every store it builds (composition/store.ts) rather than runtime
     * subscriptions: the SQLite send writer runs on a thread of its own, over a store of its own,
     * and must publish exactly as the main thread does.
     */
    eventHandlers: readonly EventHandler[];
  }
}

/**
 * The one internal event path (DESIGN.md §3). Every source of events (the
 * send service at acceptance, the delivery worker, the inbound parsers)
 * publishes here, inside the transaction that changed the statuses, so an
 * event is recorded if and only if its change is. Records `events` and runs
 * every handler over them: call inside a transaction, with its repositories.
 */
export async function publishEvents(repos: Repositories, events: MessageEvent[]): Promise<void> {
  if (events.length === 0) return;
  await repos.messageEvents.insertMany(
    events.map((e) => ({
      id: e.id,
      workspace_id: e.workspace_id,
      message_id: e.message_id,
      type: e.type,
      recipient: e.recipient,
      payload: JSON.stringify(eventPayload(e)),
      created_at: e.timestamp,
    })),
  );
  for (const handler of repos.eventHandlers) await handler(repos, events);
}
