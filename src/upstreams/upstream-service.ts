import type { Config } from '../config.js';
import type { SesUpstreamSettings, SmtpUpstreamSettings } from '../db/schema.js';
import type { Store } from '../db/store.js';
import { BREAKER_RULE, providerForUpstream, upstreamHealthOf } from '../delivery/index.js';
import { ConflictError, NotFoundError } from '../lib/errors.js';
import { newId, nowIso } from '../lib/ids.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import { createSecretBox, SecretBoxError, UPSTREAM_CREDENTIAL } from '../lib/secret-box.js';
import type { HostResolver } from '../webhooks/index.js';
import { assertPublicRelay, MASKED_PASSWORD, parseUpstream, patchUpstream, type ParsedUpstream, type UpstreamInput } from './upstream-input.js';
import type { UpstreamRow } from './upstreams-repository.js';

const HOUR_MS = 3_600_000;

/** An upstream as the API shows it: credentials masked, with its health and the attempts of its last hour. */
export interface UpstreamView {
  id: string;
  name: string;
  type: 'smtp' | 'ses';
  /** smtp: the URL with the password masked. */
  url?: string;
  starttls?: string;
  /** ses: the region, the access key id masked, the configuration set and endpoint. */
  region?: string;
  access_key_id?: string;
  configuration_set?: string | null;
  endpoint?: string | null;
  health: 'healthy' | 'degraded' | 'down';
  last_error: string | null;
  last_error_at: string | null;
  last_hour: { attempts: number; accepted: number; temporary: number; permanent: number; failed: number };
  /** The domains routed through it. */
  domains: { id: string; domain: string }[];
  created_at: string;
  updated_at: string;
}

export interface UpstreamTestResult {
  ok: boolean;
  /** What happened, in the upstream's words where it answered. */
  detail: string;
  duration_ms: number;
}

const notFound = () => new NotFoundError('Upstream not found');
const mask = (value: string) => (value.length <= 8 ? '*'.repeat(value.length) : `${value.slice(0, 4)}${'*'.repeat(value.length - 8)}${value.slice(-4)}`);

export interface UpstreamServiceOptions {
  resolveHost?: HostResolver | undefined;
}

export function createUpstreamService(store: Store, config: Pick<Config, 'secretKey' | 'upstreamAllowPrivate'>, options: UpstreamServiceOptions = {}) {
  const box = createSecretBox(config.secretKey, UPSTREAM_CREDENTIAL);

  function parsedOf(row: UpstreamRow): ParsedUpstream {
    return { name: row.name, type: row.type, settings: JSON.parse(row.settings) as ParsedUpstream['settings'], secret: row.secret === null ? null : box.open(row.secret) };
  }

  async function views(workspaceId: string, rows: UpstreamRow[]): Promise<UpstreamView[]> {
    const keys = rows.map((r) => r.id);
    const [health, counts, routed] = await Promise.all([
      store.upstreamHealth.list(keys),
      store.upstreams.attemptCounts(keys, new Date(Date.now() - HOUR_MS).toISOString()),
      store.upstreams.routedDomains(workspaceId),
    ]);
    const now = Date.now();
    return rows.map((row) => {
      const h = health.find((x) => x.key === row.id);
      const mine = counts.filter((c) => c.upstream === row.id);
      const count = (...outcomes: string[]) => mine.filter((c) => outcomes.includes(c.outcome)).reduce((sum, c) => sum + Number(c.n), 0);
      const settings = JSON.parse(row.settings) as SmtpUpstreamSettings & SesUpstreamSettings;
      const shown =
        row.type === 'smtp'
          ? { url: row.secret === null ? settings.url : settings.url.replace(/^(smtps?:\/\/[^@/]*)@/, `$1:${MASKED_PASSWORD}@`), starttls: settings.starttls }
          : { region: settings.region, access_key_id: mask(settings.access_key_id), configuration_set: settings.configuration_set, endpoint: settings.endpoint };
      return {
        id: row.id,
        name: row.name,
        type: row.type,
        ...shown,
        health: upstreamHealthOf(h, now, BREAKER_RULE),
        last_error: h?.last_error ?? null,
        last_error_at: h?.last_error_at ?? null,
        last_hour: { attempts: count('accepted', 'delivered', 'temporary', 'permanent', 'failed'), accepted: count('accepted', 'delivered'), temporary: count('temporary'), permanent: count('permanent'), failed: count('failed') },
        domains: routed.filter((d) => (JSON.parse(d.upstream_ids) as string[]).includes(row.id)).map((d) => ({ id: d.id, domain: d.domain })),
        created_at: row.created_at,
        updated_at: row.updated_at,
      };
    });
  }

  async function findOrThrow(workspaceId: string, id: string): Promise<UpstreamRow> {
    const row = await store.upstreams.findById(workspaceId, id);
    if (!row) throw notFound();
    return row;
  }

  const nameTaken = (name: string) => new ConflictError(`An upstream named ${JSON.stringify(name)} already exists in this workspace`);

  async function write(action: () => Promise<unknown>, name: string): Promise<void> {
    try {
      await action();
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken(name);
      throw error;
    }
  }

  async function one(workspaceId: string, id: string): Promise<UpstreamView> {
    return (await views(workspaceId, [await findOrThrow(workspaceId, id)]))[0]!;
  }

  return {
    async create(workspaceId: string, input: UpstreamInput): Promise<UpstreamView> {
      const parsed = parseUpstream(input);
      await assertPublicRelay(parsed, config.upstreamAllowPrivate, options.resolveHost);
      const now = nowIso();
      const id = newId('ups');
      const row: UpstreamRow = {
        id, workspace_id: workspaceId, name: parsed.name, type: parsed.type, settings: JSON.stringify(parsed.settings),
        secret: parsed.secret === null ? null : box.seal(parsed.secret), created_at: now, updated_at: now,
      };
      await write(() => store.upstreams.insert(row), parsed.name);
      return one(workspaceId, id);
    },

    async list(workspaceId: string): Promise<UpstreamView[]> {
      return views(workspaceId, await store.upstreams.listByWorkspace(workspaceId));
    },

    get: one,

    async update(workspaceId: string, id: string, input: UpstreamInput): Promise<UpstreamView> {
      const row = await findOrThrow(workspaceId, id);
      let current: ParsedUpstream;
      try {
        current = parsedOf(row);
      } catch (error) {
        // Sealed under another key: the change must give the secret again.
        if (!(error instanceof SecretBoxError)) throw error;
        current = { ...parsedOf({ ...row, secret: null }), secret: null };
      }
      const parsed = patchUpstream(current, input);
      await assertPublicRelay(parsed, config.upstreamAllowPrivate, options.resolveHost);
      const change = { name: parsed.name, settings: JSON.stringify(parsed.settings), secret: parsed.secret === null ? null : box.seal(parsed.secret), updated_at: nowIso() };
      await write(() => store.upstreams.update(workspaceId, id, change), parsed.name);
      return one(workspaceId, id);
    },

    /** Refused (409) while a domain routes through it: the domain would fall back to the server's upstream unannounced. */
    async remove(workspaceId: string, id: string): Promise<{ id: string; deleted: true }> {
      await findOrThrow(workspaceId, id);
      const routed = (await store.upstreams.routedDomains(workspaceId)).filter((d) => (JSON.parse(d.upstream_ids) as string[]).includes(id));
      if (routed.length > 0) throw new ConflictError(`Upstream ${id} is on the route of ${routed.map((d) => d.domain).join(', ')}: take it off first (PATCH /v1/domains/{id})`);
      if (!(await store.upstreams.delete(workspaceId, id))) throw notFound();
      return { id, deleted: true };
    },

    /** Connects and authenticates (EHLO, STARTTLS and AUTH; SES's GetAccount), sending nothing; 200 whatever the upstream answered. */
    async test(workspaceId: string, id: string): Promise<UpstreamTestResult> {
      const row = await findOrThrow(workspaceId, id);
      await assertPublicRelay(parsedOf({ ...row, secret: null }), config.upstreamAllowPrivate, options.resolveHost);
      const started = performance.now();
      const took = () => Math.round(performance.now() - started);
      let provider;
      try {
        provider = providerForUpstream(row, { secretKey: config.secretKey, store, slots: () => ({ claim: async () => 0, close: async () => undefined }), logger: { info: () => undefined, warn: () => undefined } });
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error;
        return { ok: false, detail: "The upstream's password or secret access key was encrypted under another key than this server's: give it again (PATCH /v1/upstreams/{id})", duration_ms: took() };
      }
      try {
        await provider.verify!();
        const detail = row.type === 'smtp' ? 'Connected, greeted and authenticated: the relay takes Mailroom’s session' : 'SES answered GetAccount with these credentials';
        return { ok: true, detail, duration_ms: took() };
      } catch (error) {
        const e = error as Error & { response?: string };
        return { ok: false, detail: `${e.name === 'Error' ? '' : `${e.name}: `}${e.response ?? e.message}`, duration_ms: took() };
      } finally {
        await provider.close().catch(() => undefined);
      }
    },
  };
}
