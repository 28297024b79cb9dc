import { newId } from '../lib/ids.js';
import type { NewWebhookDelivery } from './webhook-deliveries-repository.js';

/**
 * The event type of a test delivery. Not one of SPEC.md §6.1's kinds, so no
 * endpoint subscribes to it: it is sent only on request, to one endpoint.
 */
export const TEST_EVENT_TYPE = 'test';

/**
 * A test delivery for one endpoint, due at `now`: a pending row like those
 * the fan-out writes, so the dispatcher signs, posts, retries and records it
 * as any other. Its body carries the general fields of SPEC.md §6.2 that do
 * not need a message (`event`, `timestamp`, `workspace_id`) and the event's
 * `id`; there is no message, so no `message_id`, `to`, `from` or `subject`.
 */
export function testDelivery(endpoint: { id: string; workspace_id: string }, now: string): NewWebhookDelivery {
  const eventId = newId('evt');
  const payload = { id: eventId, event: TEST_EVENT_TYPE, timestamp: now, workspace_id: endpoint.workspace_id };
  return {
    id: newId('whd'),
    webhook_id: endpoint.id,
    workspace_id: endpoint.workspace_id,
    event_id: eventId,
    event_type: TEST_EVENT_TYPE,
    payload: JSON.stringify(payload),
    state: 'pending',
    available_at: now,
    lease_owner: null,
    lease_expires_at: null,
    last_status: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}
