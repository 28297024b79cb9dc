import { isIP } from 'node:net';
import type { SesUpstreamSettings, SmtpUpstreamSettings, StartTlsPolicy, UpstreamsTable } from '../db/schema.js';
import { ValidationError } from '../lib/errors.js';
import { nonPublicReason, systemResolver, type HostResolver } from '../webhooks/index.js';

export const MAX_UPSTREAM_NAME_LENGTH = 100;
export const STARTTLS_POLICIES = ['opportunistic', 'required', 'never'] as const satisfies readonly StartTlsPolicy[];
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const EXAMPLE_URL = 'smtp://user:password@relay.example.com:587';
const SES_FIELDS = ['region', 'access_key_id', 'secret_access_key', 'configuration_set', 'endpoint'] as const;
const SMTP_FIELDS = ['url', 'starttls'] as const;
/** How the API shows a relay's password: a URL sent back with it keeps the stored password. */
export const MASKED_PASSWORD = '********';

/** The URL without its password when the password is the mask (the URL as GET shows it). */
function withoutMask(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password !== MASKED_PASSWORD) return raw;
    url.password = '';
    return url.href;
  } catch {
    return raw; // smtpOf says what is wrong with it
  }
}

/** The body of POST /v1/upstreams, and of PATCH (every field optional there), once its JSON types are checked. */
export interface UpstreamInput {
  name?: string | undefined;
  type?: string | undefined;
  url?: string | undefined;
  starttls?: string | undefined;
  region?: string | undefined;
  access_key_id?: string | undefined;
  secret_access_key?: string | undefined;
  configuration_set?: string | null | undefined;
  endpoint?: string | null | undefined;
}

/** What is stored of an upstream: its settings anyone may read, and the secret to seal. */
export interface ParsedUpstream {
  name: string;
  type: UpstreamsTable['type'];
  settings: SmtpUpstreamSettings | SesUpstreamSettings;
  /** The password or secret access key in clear; null for a relay without a password. */
  secret: string | null;
}

function nameOf(name: string | undefined): string {
  const trimmed = name?.trim() ?? '';
  if (trimmed === '') throw new ValidationError('name is required');
  if (trimmed.length > MAX_UPSTREAM_NAME_LENGTH) throw new ValidationError(`name must be at most ${MAX_UPSTREAM_NAME_LENGTH} characters`);
  return trimmed;
}

function smtpOf(input: UpstreamInput): Omit<ParsedUpstream, 'name'> {
  if (input.url === undefined) throw new ValidationError(`url is required for an smtp upstream (${EXAMPLE_URL})`);
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new ValidationError(`url must be an smtp:// or smtps:// URL, such as ${EXAMPLE_URL}`);
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new ValidationError(`url must be an smtp:// or smtps:// URL (got ${url.protocol.slice(0, -1)})`);
  if (url.hostname === '') throw new ValidationError('url must name a host');
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') throw new ValidationError('url must be only scheme, user, password, host and port');
  const starttls = (input.starttls ?? 'opportunistic') as StartTlsPolicy;
  if (!STARTTLS_POLICIES.includes(starttls)) throw new ValidationError(`starttls must be one of ${STARTTLS_POLICIES.join(', ')}`);
  let secret: string | null;
  try {
    decodeURIComponent(url.username);
    secret = url.password === '' ? null : decodeURIComponent(url.password);
  } catch {
    throw new ValidationError('url must percent-encode its user and password (a % as %25)');
  }
  if (url.username === '' && secret !== null) throw new ValidationError(`url has a password but no user: give both (${EXAMPLE_URL}), or neither`);
  url.password = '';
  const port = url.port || (url.protocol === 'smtps:' ? '465' : '587');
  const user = url.username === '' ? '' : `${url.username}@`;
  return { type: 'smtp', settings: { url: `${url.protocol}//${user}${url.hostname}:${port}`, starttls }, secret };
}

function sesOf(input: UpstreamInput): Omit<ParsedUpstream, 'name'> {
  if (!input.region || !REGION.test(input.region)) throw new ValidationError('region is required for an ses upstream, as AWS names it (eu-west-1)');
  if (!input.access_key_id || !/^[A-Z0-9]{16,128}$/.test(input.access_key_id)) throw new ValidationError('access_key_id is required for an ses upstream (AKIA…)');
  if (!input.secret_access_key) throw new ValidationError('secret_access_key is required for an ses upstream');
  if (input.configuration_set !== undefined && input.configuration_set !== null && !/^[A-Za-z0-9_-]{1,64}$/.test(input.configuration_set)) {
    throw new ValidationError('configuration_set must be 1 to 64 letters, digits, - or _');
  }
  if (input.endpoint !== undefined && input.endpoint !== null && !/^https?:\/\/[^/?#\s]+\/?$/.test(input.endpoint)) throw new ValidationError('endpoint must be an http(s) URL with a host only');
  return {
    type: 'ses',
    settings: { region: input.region, access_key_id: input.access_key_id, configuration_set: input.configuration_set ?? null, endpoint: input.endpoint ?? null },
    secret: input.secret_access_key,
  };
}

/** AUTH needs both: a user without a password would authenticate with an empty one. */
function withCredentials(parsed: ParsedUpstream): ParsedUpstream {
  if (parsed.type !== 'smtp' || parsed.secret !== null) return parsed;
  const user = new URL((parsed.settings as SmtpUpstreamSettings).url).username;
  if (user !== '') throw new ValidationError(`url names the user ${decodeURIComponent(user)} without a password: give both (${EXAMPLE_URL}), or neither`);
  return parsed;
}

/** Fields of the other type are refused rather than ignored: a caller who sends them expects them to count. */
function assertFieldsOf(type: UpstreamsTable['type'], input: UpstreamInput): void {
  if (type === 'smtp' && SES_FIELDS.some((field) => input[field] !== undefined)) throw new ValidationError('region, access_key_id, secret_access_key, configuration_set and endpoint are for an ses upstream');
  if (type === 'ses' && SMTP_FIELDS.some((field) => input[field] !== undefined)) throw new ValidationError('url and starttls are for an smtp upstream');
}

/** A new upstream from POST /v1/upstreams's body. */
export function parseUpstream(input: UpstreamInput): ParsedUpstream {
  const name = nameOf(input.name);
  if (input.type !== 'smtp' && input.type !== 'ses') throw new ValidationError('type must be smtp or ses');
  assertFieldsOf(input.type, input);
  return withCredentials({ name, ...(input.type === 'smtp' ? smtpOf(input) : sesOf(input)) });
}

/**
 * A PATCH applied to what is stored: fields left out keep their value, the secret included (an SMTP
 * `url` without a password, or with the mask GET shows, keeps the stored one for the same user; a new
 * user needs its password).
 */
export function patchUpstream(current: ParsedUpstream, input: UpstreamInput): ParsedUpstream {
  if (input.type !== undefined && input.type !== current.type) throw new ValidationError('type cannot be changed: add a new upstream instead');
  assertFieldsOf(current.type, input);
  const name = input.name === undefined ? current.name : nameOf(input.name);
  if (current.type === 'smtp') {
    const settings = current.settings as SmtpUpstreamSettings;
    const next = smtpOf({ url: input.url === undefined ? settings.url : withoutMask(input.url), starttls: input.starttls ?? settings.starttls });
    const sameUser = new URL((next.settings as SmtpUpstreamSettings).url).username === new URL(settings.url).username;
    return withCredentials({ name, ...next, secret: next.secret ?? (sameUser ? current.secret : null) });
  }
  const settings = current.settings as SesUpstreamSettings;
  return {
    name,
    ...sesOf({
      region: input.region ?? settings.region,
      access_key_id: input.access_key_id ?? settings.access_key_id,
      secret_access_key: input.secret_access_key ?? current.secret ?? undefined,
      configuration_set: input.configuration_set === undefined ? settings.configuration_set : input.configuration_set,
      endpoint: input.endpoint === undefined ? settings.endpoint : input.endpoint,
    }),
  };
}

/**
 * The SSRF rule of webhooks, for a workspace's relay: every address its host resolves to must be
 * public, unless the operator sets UPSTREAM_ALLOW_PRIVATE=true. Checked at creation, at each change
 * and at each test. SES endpoints are the operator's only when given (tests, compatible services).
 */
export async function assertPublicRelay(parsed: ParsedUpstream, allowPrivate: boolean, resolve: HostResolver = systemResolver): Promise<void> {
  if (allowPrivate) return;
  const raw = parsed.type === 'smtp' ? (parsed.settings as SmtpUpstreamSettings).url : (parsed.settings as SesUpstreamSettings).endpoint;
  if (raw === null) return;
  const url = new URL(raw);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: string[];
  try {
    addresses = isIP(host) !== 0 ? [host] : await resolve(host);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ValidationError(`The upstream's host ${host} could not be resolved${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  if (addresses.length === 0) throw new ValidationError(`The upstream's host ${host} could not be resolved (no addresses)`);
  for (const address of addresses) {
    const reason = nonPublicReason(address);
    if (reason === undefined) continue;
    const where = address === host ? `The upstream points to ${address}` : `The upstream's host ${host} resolves to ${address}`;
    throw new ValidationError(`${where}, ${reason}; upstreams may only be public hosts, unless the server runs with UPSTREAM_ALLOW_PRIVATE=true`);
  }
}
