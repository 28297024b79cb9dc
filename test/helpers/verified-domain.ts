import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import type { TestDnsServer } from './dns-server.js';
import type { TestApp } from './test-app.js';

/**
 * Adds `domain` to the app's workspace through the API, publishes its DKIM
 * record exactly as the API words it on the test DNS server, and verifies it
 * through the API: the real path a customer takes. The app must use the DNS
 * server (DNS_SERVERS).
 */
export async function addVerifiedDomain(t: TestApp, dns: TestDnsServer, domain: string): Promise<{ id: string; selector: string }> {
  const { data } = (await t.call('POST', '/v1/domains', { body: { domain } })).json();
  const dkim = (data.records as { purpose: string; name: string; value: string }[]).find((r) => r.purpose === 'dkim')!;
  dns.setTxt(dkim.name, [dkim.value]);
  const verified = (await t.call('POST', `/v1/domains/${data.id}/verify`)).json().data;
  assert.equal(verified.status, 'verified', JSON.stringify(verified));
  return { id: data.id, selector: dkim.name.split('.')[0]! };
}

/** mailauth's verdict on a raw message's DKIM signatures, looked up on the test DNS server. */
export async function verifyDkim(raw: string | Buffer, dns: TestDnsServer) {
  const resolver = new Resolver();
  resolver.setServers([dns.address]);
  const resolve = (name: string, type: string) => resolver.resolve(name, type as 'TXT');
  const { results } = await dkimVerify(Buffer.isBuffer(raw) ? raw : Buffer.from(raw), { resolver: resolve as never });
  return results as unknown as { status: { result: string }; signingDomain: string; selector: string; algo: string }[];
}
