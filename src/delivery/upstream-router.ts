import type { Logger } from 'pino';
import type { Config, ProviderKind } from '../config.js';
import type { SesUpstreamSettings, SmtpUpstreamSettings, UpstreamsTable } from '../db/schema.js';
import type { Store } from '../db/store.js';
import { connectRedis } from '../db/redis.js';
import { createSecretBox, UPSTREAM_CREDENTIAL } from '../lib/secret-box.js';
import type { SenderDomain } from '../domains/index.js';
import type { Provider } from './provider.js';
import { createProvider } from './providers.js';
import { redisSlots, storeSlots, type SlotClaimer } from './send-rate.js';
import { createSesProvider } from './ses-provider.js';
import { createSmtpProvider } from './smtp-provider.js';

/** How long a workspace upstream's row is trusted before it is read again: a PATCH takes effect within this. */
export const UPSTREAM_READ_EVERY_MS = 5_000;

/** One upstream of a route: its key in upstream_health and delivery_attempts.upstream, and the provider that talks to it. */
export interface RoutedUpstream {
  key: string;
  provider: Provider;
}

export interface UpstreamRouter {
  /** The upstreams a send from this sender is tried through, in order: the domain's own, or the server's. */
  routeFor(sender: SenderDomain): Promise<RoutedUpstream[]>;
  close(): Promise<void>;
}

/** The key of one of MAILROOM_PROVIDER's providers. */
export const serverUpstreamKey = (kind: string) => `server:${kind}`;

/** A provider for a workspace's upstream row, its secret opened (secret-box.ts). */
export function providerForUpstream(
  row: UpstreamsTable,
  deps: { secretKey: Config['secretKey']; store: Store; slots: (name: string) => SlotClaimer; logger: Pick<Logger, 'info' | 'warn'> },
): Provider {
  const secret = row.secret === null ? null : createSecretBox(deps.secretKey, UPSTREAM_CREDENTIAL).open(row.secret);
  if (row.type === 'smtp') {
    const settings = JSON.parse(row.settings) as SmtpUpstreamSettings;
    const url = new URL(settings.url);
    if (secret !== null) url.password = encodeURIComponent(secret);
    return createSmtpProvider(url.href, { starttls: settings.starttls });
  }
  const settings = JSON.parse(row.settings) as SesUpstreamSettings;
  return createSesProvider({
    settings: { region: settings.region, endpoint: settings.endpoint ?? undefined, configurationSet: settings.configuration_set ?? undefined, maxSendRate: undefined },
    credentials: { accessKeyId: settings.access_key_id, secretAccessKey: secret ?? '' },
    refusalKey: null,
    store: deps.store,
    slots: deps.slots(`ses:${row.id}`),
    logger: deps.logger,
  });
}

/**
 * Which upstreams a send goes through (docs/upstreams.md#routing): a domain with `upstream_ids`
 * goes through those, in order; any other (and the sandbox's) through MAILROOM_PROVIDER's list.
 * A workspace upstream's provider is made when first needed and made again once its row has
 * changed (the old one closed once the hand-overs on it are done: a pool closes gracefully).
 */
export function createUpstreamRouter(
  config: Pick<Config, 'providers' | 'smtpUrl' | 'ses' | 'redisUrl' | 'redisKeyPrefix' | 'secretKey'>,
  store: Store,
  logger: Pick<Logger, 'info' | 'warn'>,
  /** Tests: the server's providers, made already. */
  serverProviders?: Provider[],
): UpstreamRouter {
  const server: RoutedUpstream[] = (serverProviders ?? config.providers.map((kind: ProviderKind) => createProvider({ ...config, provider: kind }, store, logger))).map(
    (provider) => ({ key: serverUpstreamKey(provider.name), provider }),
  );
  const slots = (name: string): SlotClaimer => {
    const redisUrl = config.redisUrl;
    return redisUrl ? redisSlots(() => connectRedis(redisUrl), `${config.redisKeyPrefix}send-slots:${name}`) : storeSlots(store, name);
  };
  const made = new Map<string, { updatedAt: string; provider: Provider }>();
  const rows = new Map<string, { row: UpstreamsTable | undefined; readAt: number }>();

  async function rowsOf(workspaceId: string, ids: string[]): Promise<(UpstreamsTable | undefined)[]> {
    const stale = ids.filter((id) => {
      const seen = rows.get(id);
      return !seen || Date.now() - seen.readAt >= UPSTREAM_READ_EVERY_MS;
    });
    if (stale.length > 0) {
      const found = new Map((await store.upstreams.findMany(workspaceId, stale)).map((row) => [row.id, row]));
      for (const id of stale) rows.set(id, { row: found.get(id), readAt: Date.now() });
    }
    return ids.map((id) => rows.get(id)?.row);
  }

  function providerOf(row: UpstreamsTable): Provider {
    const current = made.get(row.id);
    if (current?.updatedAt === row.updated_at) return current.provider;
    if (current) void current.provider.close().catch(() => undefined);
    const provider = providerForUpstream(row, { secretKey: config.secretKey, store, slots, logger });
    made.set(row.id, { updatedAt: row.updated_at, provider });
    return provider;
  }

  return {
    async routeFor(sender) {
      if (sender.kind === 'sandbox' || !sender.row.upstream_ids) return server;
      const ids = JSON.parse(sender.row.upstream_ids) as string[];
      if (ids.length === 0) return server;
      // An upstream deleted since (DELETE refuses one a domain routes to, but a route may be read before the change) is left out.
      const found = (await rowsOf(sender.row.workspace_id, ids)).filter((row): row is UpstreamsTable => row !== undefined);
      return found.length === 0 ? server : found.map((row) => ({ key: row.id, provider: providerOf(row) }));
    },
    async close() {
      await Promise.all([...server.map((u) => u.provider.close()), ...[...made.values()].map((m) => m.provider.close())]);
    },
  };
}
