import { Resolver } from 'node:dns/promises';

/** Per attempt; c-ares backs off between tries, so the deadline below is what bounds a look-up. */
const DNS_TIMEOUT_MS = 1500;
const DNS_TRIES = 2;
/** A verify request waits at most this long for DNS, however many resolvers are configured. */
export const DNS_LOOKUP_DEADLINE_MS = 3000;

/** What a look-up found: TXT values (each record's strings joined), MX exchanges or CNAME targets. */
export type DnsLookup =
  | { kind: 'found'; records: string[] }
  | { kind: 'not-found' }
  | { kind: 'error'; code: string };

const NOT_FOUND_CODES = new Set(['ENOTFOUND', 'ENODATA']);

/** TXT, MX and CNAME look-ups against the configured resolvers (`DNS_SERVERS`), or the system's. */
export function createDnsVerifier(servers: string[]) {
  // A resolver per look-up: cancelling one at its deadline must not cancel the others'.
  function newResolver(): Resolver {
    const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: DNS_TRIES });
    if (servers.length > 0) resolver.setServers(servers);
    return resolver;
  }

  async function lookup(name: string, query: (resolver: Resolver) => Promise<string[]>): Promise<DnsLookup> {
    const resolver = newResolver();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<DnsLookup>((resolve) => {
      timer = setTimeout(() => {
        resolver.cancel();
        resolve({ kind: 'error', code: 'ETIMEOUT' });
      }, DNS_LOOKUP_DEADLINE_MS);
    });
    const answer = query(resolver).then(
      (records): DnsLookup => ({ kind: 'found', records }),
      (error: NodeJS.ErrnoException): DnsLookup => {
        const code = error.code ?? 'EUNKNOWN';
        return NOT_FOUND_CODES.has(code) ? { kind: 'not-found' } : { kind: 'error', code };
      },
    );
    try {
      return await Promise.race([answer, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    // A record longer than 255 octets arrives as several strings; they form one value.
    lookupTxt: (name: string) => lookup(name, async (resolver) => (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''))),
    lookupMx: (name: string) => lookup(name, async (resolver) => (await resolver.resolveMx(name)).map((mx) => mx.exchange)),
    // The name's own CNAME, the first step of a chain: the tracking domain must point at MAILROOM_HOSTNAME itself.
    lookupCname: (name: string) => lookup(name, (resolver) => resolver.resolveCname(name)),
  };
}

export type DnsVerifier = ReturnType<typeof createDnsVerifier>;
