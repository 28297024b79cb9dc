import type { Logger } from 'pino';
import type { Store } from '../db/store.js';
import type { UpstreamTransition } from '../delivery/index.js';
import { fanOutUpstreamEvent } from '../webhooks/index.js';

/**
 * What an upstream going down or coming back comes to (docs/upstreams.md#seen-and-told): one
 * log line, and an `upstream.down` / `upstream.up` event to the endpoints that named it. The
 * process whose write changed the breaker's state is the one told (upstream-breaker.ts), so each
 * change is told once whatever the number of workers.
 */
export function tellUpstreamChanges(store: Store, logger: Pick<Logger, 'warn' | 'info'>, downMs: number) {
  return async (change: UpstreamTransition): Promise<void> => {
    const server = change.key.startsWith('server:');
    const row = server ? undefined : await store.upstreams.findAnyById(change.key);
    const provider = server ? change.key.slice('server:'.length) : (row?.type ?? 'unknown');
    const name = server ? `MAILROOM_PROVIDER's ${provider}` : (row?.name ?? change.key);
    const fields = { upstream: change.key, name, provider, ...(row ? { workspaceId: row.workspace_id } : {}) };
    if (change.state === 'down') logger.warn({ ...fields, lastError: change.lastError }, `upstream ${name} is down: sends fail over to the next upstream of their route; probed again in ${Math.round(downMs / 1000)} s`);
    else logger.info(fields, `upstream ${name} is up again`);
    await store.transaction((repos) =>
      fanOutUpstreamEvent(
        repos,
        { type: change.state === 'down' ? 'upstream.down' : 'upstream.up', upstream_id: change.key, name, provider, last_error: change.lastError, timestamp: change.at },
        server ? 'all' : row ? [row.workspace_id] : [],
      ),
    );
  };
}
