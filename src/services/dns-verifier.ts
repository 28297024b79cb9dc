import { Resolver } from 'node:dns/promises';

/** Per attempt; c-ares backs off between tries, so the deadline below is what bounds a look-up. */
const DNS_TIMEOUT_MS = 1500;
const DNS_TRIES = 2;
/** A verify request waits at most this long for DNS, however many resolvers are configured. */
export const DNS_LOOKUP_DEADLINE_MS = 3000;

export type TxtLookup =
  | { kind: 'found'; records: string[] }
  | { kind: 'not-found' }
  | { kind: 'error'; code: string };

const NOT_FOUND_CODES = new Set(['ENOTFOUND', 'ENODATA']);

/** TXT look-ups against the configured resolvers (`DNS_SERVERS`), or the system's. */
export function createDnsVerifier(servers: string[]) {
  // A resolver per look-up: cancelling one at its deadline must not cancel the others'.
  function newResolver(): Resolver {
    const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: DNS_TRIES });
    if (servers.length > 0) resolver.setServers(servers);
    return resolver;
  }

  async function lookup(resolver: Resolver, name: string): Promise<TxtLookup> {
    try {
      // A record longer than 255 octets arrives as several strings; they form one value.
      const records = await resolver.resolveTxt(name);
      return { kind: 'found', records: records.map((chunks) => chunks.join('')) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      return NOT_FOUND_CODES.has(code) ? { kind: 'not-found' } : { kind: 'error', code };
    }
  }

  return {
    async lookupTxt(name: string): Promise<TxtLookup> {
      const resolver = newResolver();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<TxtLookup>((resolve) => {
        timer = setTimeout(() => {
          resolver.cancel();
          resolve({ kind: 'error', code: 'ETIMEOUT' });
        }, DNS_LOOKUP_DEADLINE_MS);
      });
      try {
        return await Promise.race([lookup(resolver, name), deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export type DnsVerifier = ReturnType<typeof createDnsVerifier>;
