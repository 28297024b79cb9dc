import type { StartTls, Upstream } from './types';

/** The form's fields for either type; the ones of the other type are ignored. */
export interface Draft {
  type: Upstream['type'];
  name: string;
  url: string;
  /** Typed apart from the URL, so it is never shown; blank when editing keeps the stored one. */
  password: string;
  starttls: StartTls;
  region: string;
  /** Blank when editing keeps the stored (masked) one. */
  access_key_id: string;
  secret_access_key: string;
  configuration_set: string;
  endpoint: string;
}

export const emptyDraft = (type: Upstream['type'] = 'smtp'): Draft => ({
  type, name: '', url: '', password: '', starttls: 'opportunistic', region: '', access_key_id: '', secret_access_key: '', configuration_set: '', endpoint: '',
});

/** An upstream as the edit form starts from it: its URL without the masked password, every secret blank. */
export function draftOf(u: Upstream): Draft {
  return {
    ...emptyDraft(u.type),
    name: u.name,
    url: (u.url ?? '').replace(/^(smtps?:\/\/[^:@/]*):\*+@/, '$1@'),
    starttls: u.starttls ?? 'opportunistic',
    region: u.region ?? '',
    configuration_set: u.configuration_set ?? '',
    endpoint: u.endpoint ?? '',
  };
}

/** The URL with the password field's value as its password; as typed when there is none, or when it does not parse (the server says why). */
function urlWithPassword(url: string, password: string): string {
  if (password === '') return url;
  try {
    const parsed = new URL(url);
    parsed.password = password;
    return parsed.href;
  } catch {
    return url;
  }
}

const optional = (value: string) => (value.trim() === '' ? null : value.trim());

/** POST …/upstreams's body. */
export function createBody(d: Draft): Record<string, unknown> {
  if (d.type === 'smtp') return { type: 'smtp', name: d.name, url: urlWithPassword(d.url.trim(), d.password), starttls: d.starttls };
  return {
    type: 'ses', name: d.name, region: d.region.trim(), access_key_id: d.access_key_id.trim(), secret_access_key: d.secret_access_key,
    configuration_set: optional(d.configuration_set), endpoint: optional(d.endpoint),
  };
}

/** PATCH …/upstreams/:id's body: a blank secret field is left out, so the server keeps the stored secret. */
export function patchBody(d: Draft): Record<string, unknown> {
  if (d.type === 'smtp') return { name: d.name, url: urlWithPassword(d.url.trim(), d.password), starttls: d.starttls };
  return {
    name: d.name, region: d.region.trim(),
    ...(d.access_key_id.trim() === '' ? {} : { access_key_id: d.access_key_id.trim() }),
    ...(d.secret_access_key === '' ? {} : { secret_access_key: d.secret_access_key }),
    configuration_set: optional(d.configuration_set), endpoint: optional(d.endpoint),
  };
}
