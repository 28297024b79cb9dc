import type { Config } from '../config.js';
import type { Repositories } from '../db/store.js';
import type { DomainRow } from './domains-repository.js';
import { ForbiddenError } from '../lib/errors.js';

/** In sandbox mode this sender domain is always verified, so a first send needs no DNS. */
export const SANDBOX_SENDER_DOMAIN = 'sandbox.mailroom.test';

/** A domain that may send: the workspace's verified row, or (sandbox provider only) the built-in sandbox domain. */
export type SenderDomain = { kind: 'verified'; row: DomainRow } | { kind: 'sandbox' };
/** What checkSenderDomain answers: a domain that may send, or why not. */
export type SenderDomainCheck = SenderDomain | { kind: 'refused'; problem: string };

/**
 * Whether mail from `domain` may go out for this workspace: checked when a
 * send is accepted and again just before it is handed over (the domain may
 * have been deleted, or failed verification, in between). Returns the reason
 * as one sentence when it may not.
 */
export async function checkSenderDomain(
  domains: Repositories['domains'],
  config: Pick<Config, 'provider'>,
  workspaceId: string,
  domain: string,
): Promise<SenderDomainCheck> {
  if (config.provider === 'sandbox' && domain === SANDBOX_SENDER_DOMAIN) return { kind: 'sandbox' };
  const row = await domains.findByName(workspaceId, domain);
  if (!row) return { kind: 'refused', problem: `Sender domain ${domain} is not a domain of this workspace; add and verify it first` };
  if (row.status !== 'verified') {
    return { kind: 'refused', problem: `Sender domain ${domain} is not verified; publish its DNS records and verify it first` };
  }
  return { kind: 'verified', row };
}

/**
 * The domains mail may come from now, as checkSenderDomain judges them: the
 * workspace's verified domains, and the sandbox domain under the sandbox
 * provider (what the dashboard offers for a test e-mail).
 */
export async function sendableDomains(domains: Repositories['domains'], config: Pick<Config, 'provider'>, workspaceId: string): Promise<string[]> {
  const verified = (await domains.listByWorkspace(workspaceId)).filter((row) => row.status === 'verified').map((row) => row.domain);
  return config.provider === 'sandbox' ? [...verified, SANDBOX_SENDER_DOMAIN] : verified;
}

/**
 * An API key restricted to one domain sends from that domain only: otherwise
 * 403. A key whose domain was deleted sends from nowhere rather than anywhere.
 */
export async function checkKeyDomain(domains: Repositories['domains'], workspaceId: string, keyDomainId: string, domain: string): Promise<void> {
  const own = await domains.findById(workspaceId, keyDomainId);
  if (!own) throw new ForbiddenError('This API key can only send from a domain that has been deleted');
  if (own.domain.toLowerCase() !== domain) throw new ForbiddenError(`This API key can only send from ${own.domain}`);
}
