import { eventPayload, type EventHandler } from '../events/index.js';
import { newId } from '../lib/ids.js';
import type { NewWebhookDelivery } from './webhook-deliveries-repository.js';

/**
 * Fans each event out to one delivery per endpoint of its workspace that
 * receives its type, in the transaction of the event: if the event is
 * committed, so are its deliveries, and a crash loses none. The payload is
 * fixed now, so every retry posts the same body.
 */
export const fanOutToWebhooks: EventHandler = async (repos, events) => {
  const endpoints = await repos.webhookDeliveries.subscribedEndpoints([...new Set(events.map((e) => e.workspace_id))]);
  if (endpoints.length === 0) return;
  const subscribed = endpoints.map((endpoint) => ({ ...endpoint, types: new Set(JSON.parse(endpoint.events) as string[]) }));
  const rows: NewWebhookDelivery[] = [];
  for (const event of events) {
    for (const endpoint of subscribed) {
      if (endpoint.workspace_id !== event.workspace_id || !endpoint.types.has(event.type)) continue;
      rows.push({
        id: newId('whd'),
        webhook_id: endpoint.id,
        workspace_id: event.workspace_id,
        event_id: event.id,
        event_type: event.type,
        payload: JSON.stringify(eventPayload(event)),
        state: 'pending',
        available_at: event.timestamp,
        lease_owner: null,
        lease_expires_at: null,
        last_status: null,
        last_error: null,
        created_at: event.timestamp,
        updated_at: event.timestamp,
      });
    }
  }
  await repos.webhookDeliveries.insertMany(rows);
};
