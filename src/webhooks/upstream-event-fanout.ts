import type { Repositories } from '../db/store.js';
import { newId } from '../lib/ids.js';
import type { NewWebhookDelivery } from './webhook-deliveries-repository.js';

/** An upstream went down or came back (docs/upstreams.md#seen-and-told). */
export interface UpstreamEvent {
  type: 'upstream.down' | 'upstream.up';
  /** `ups_…`, or `server:smtp` for one of MAILROOM_PROVIDER's. */
  upstream_id: string;
  name: string;
  provider: string;
  last_error: string | null;
  timestamp: string;
}

/**
 * One delivery per endpoint that named the event's type: of the upstream's workspace, or of
 * every workspace for one of the server's upstreams, which every workspace without routes of its
 * own sends through. Posted by the dispatcher like any event, signed, with retries.
 */
export async function fanOutUpstreamEvent(repos: Repositories, event: UpstreamEvent, workspaceIds: string[] | 'all'): Promise<number> {
  const endpoints = await repos.webhookDeliveries.endpointsNaming(event.type, workspaceIds);
  const eventId = newId('evt');
  const rows: NewWebhookDelivery[] = endpoints.map((endpoint) => ({
    id: newId('whd'),
    webhook_id: endpoint.id,
    workspace_id: endpoint.workspace_id,
    event_id: eventId,
    event_type: event.type,
    payload: JSON.stringify({ id: eventId, event: event.type, ...Object.fromEntries(Object.entries(event).filter(([key]) => key !== 'type')), workspace_id: endpoint.workspace_id }),
    state: 'pending',
    available_at: event.timestamp,
    lease_owner: null,
    lease_expires_at: null,
    last_status: null,
    last_error: null,
    created_at: event.timestamp,
    updated_at: event.timestamp,
  }));
  await repos.webhookDeliveries.insertMany(rows);
  return rows.length;
}
