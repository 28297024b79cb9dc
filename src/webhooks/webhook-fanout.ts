import { eventPayload, type EventHandler } from '../events/index.js';
import { newId } from '../lib/ids.js';
import type { NewWebhookDelivery } from './webhook-deliveries-repository.js';

/**
 * Fans each event out to one delivery per endpoint of its workspace that
 * receives its type, in the transaction of the event: if the event is
 * committed, so are its deliveries, and a crash loses none. The payload is
 * fixed now, so every retry posts the same body.
 */
/** A delivery as the fan-out writes it: pending from the event's time, leased to nobody, the body fixed now. */
export function pendingDelivery(endpoint: { id: string }, workspaceId: string, eventId: string, eventType: string, payload: string, at: string): NewWebhookDelivery {
  return {
    id: newId('whd'), webhook_id: endpoint.id, workspace_id: workspaceId, event_id: eventId, event_type: eventType, payload,
    state: 'pending', available_at: at, lease_owner: null, lease_expires_at: null, last_status: null, last_error: null, created_at: at, updated_at: at,
  };
}

export const fanOutToWebhooks: EventHandler = async (repos, events) => {
  const endpoints = await repos.webhookDeliveries.subscribedEndpoints([...new Set(events.map((e) => e.workspace_id))]);
  if (endpoints.length === 0) return;
  const subscribed = endpoints.map((endpoint) => ({ ...endpoint, types: new Set(JSON.parse(endpoint.events) as string[]) }));
  const rows: NewWebhookDelivery[] = [];
  for (const event of events) {
    for (const endpoint of subscribed) {
      if (endpoint.workspace_id !== event.workspace_id || !endpoint.types.has(event.type)) continue;
      rows.push(pendingDelivery(endpoint, event.workspace_id, event.id, event.type, JSON.stringify(eventPayload(event)), event.timestamp));
    }
  }
  await repos.webhookDeliveries.insertMany(rows);
};
