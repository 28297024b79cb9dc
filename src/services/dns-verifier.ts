import { Resolver } from 'node:dns/promises';

/** One DNS query should not hold an API request for long. */
const DNS_TIMEOUT_MS = 2000;
const DNS_TRIES = 2;

export type TxtLookup =
  | { kind: 'found'; records: string[] }
  | { kind: 'not-found' }
  | { kind: 'error'; code: string };

const NOT_FOUND_CODES = new Set(['ENOTFOUND', 'ENODATA']);

/** TXT look-ups against the configured resolvers (`DNS_SERVERS`), or the system's. */
export function createDnsVerifier(servers: string[]) {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: DNS_TRIES });
  if (servers.length > 0) resolver.setServers(servers);
  return {
    async lookupTxt(name: string): Promise<TxtLookup> {
      try {
        // A record longer than 255 octets arrives as several strings; they form one value.
        const records = await resolver.resolveTxt(name);
        return { kind: 'found', records: records.map((chunks) => chunks.join('')) };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
        return NOT_FOUND_CODES.has(code) ? { kind: 'not-found' } : { kind: 'error', code };
      }
    },
  };
}

export type DnsVerifier = ReturnType<typeof createDnsVerifier>;
