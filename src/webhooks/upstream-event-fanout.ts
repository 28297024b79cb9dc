import type { Repositories } from '../db/store.js';
import { newId } from '../lib/ids.js';
import { pendingDelivery } from './webhook-fanout.js';

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
  const rows = endpoints.map((endpoint) => {
    const payload = { id: eventId, event: event.type, ...Object.fromEntries(Object.entries(event).filter(([key]) => key !== 'type')), workspace_id: endpoint.workspace_id };
    return pendingDelivery(endpoint, endpoint.workspace_id, eventId, event.type, JSON.stringify(payload), event.timestamp);
  });
  await repos.webhookDeliveries.insertMany(rows);
  return rows.length;
}
