import type { Repositories } from '../db/store.js';
import { eventPayload, type MessageEvent } from './message-event.js';
import { fanOutToWebhooks } from '../webhooks/webhook-fanout.js';
import { suppressOnBounceOrComplaint } from './suppression-handler.js';

/** Something that acts on events inside the transaction that records them (webhook fan-out, the suppression list, …). */
export type EventHandler = (repos: Repositories, events: MessageEvent[]) => Promise<void>;

/**
 * The one internal event path (DESIGN.md §3). Every source of events (the
 * send service at acceptance, the delivery worker, later the inbound parsers)
 * publishes here, inside the transaction that changed the statuses, so an
 * event is recorded if and only if its change is. Handlers are a fixed list
 * rather than runtime subscriptions because the SQLite send writer runs on a
 * thread of its own and must publish exactly as the main thread does.
 */
const HANDLERS: readonly EventHandler[] = [suppressOnBounceOrComplaint, fanOutToWebhooks];

/** Records `events` and runs every handler over them. Call inside a transaction, with its repositories. */
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
  for (const handler of HANDLERS) await handler(repos, events);
}
