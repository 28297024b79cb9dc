import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { DNS_LOOKUP_DEADLINE_MS } from '../src/domains/dns-verifier.js';
import { after, before, describe, it } from 'node:test';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';

interface DnsRecord {
  type: string;
  name: string;
  value: string;
  purpose: string;
  priority?: number;
}

describe('domains', () => {
  let t: TestApp;
  let dns: TestDnsServer;
  before(async () => {
    dns = await startDnsServer();
    t = await createTestApp({ DNS_SERVERS: dns.address, MAILROOM_HOSTNAME: 'mx.mailroom.example', RATE_LIMIT_OTHER_PER_MIN: '100000' });
  });
  after(async () => {
    await t.close();
    await dns.close();
  });

  const add = async (domain: string) => t.call('POST', '/v1/domains', { body: { domain } });
  const dkimOf = (records: DnsRecord[]) => records.find((r) => r.purpose === 'dkim')!;

  it('adds a domain, lower-cased, with a 2048-bit DKIM key and the records to publish', async () => {
    const res = await add('Mail.Example.COM.');
    assert.equal(res.statusCode, 201);
    const { data } = res.json();
    assert.match(data.id, /^dom_[0-9a-z]{26}$/);
    assert.equal(data.domain, 'mail.example.com');
    assert.equal(data.status, 'pending');
    assert.match(data.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const records: DnsRecord[] = data.records;
    assert.deepEqual(records.map((r) => [r.purpose, r.type]), [
      ['dkim', 'TXT'],
      ['spf', 'TXT'],
      ['return_path_mx', 'MX'],
      ['return_path_spf', 'TXT'],
      ['dmarc', 'TXT'],
    ]);
    const dkim = dkimOf(records);
    assert.match(dkim.name, /^mr[0-9a-f]{10}\._domainkey\.mail\.example\.com$/);
    const p = /^v=DKIM1; k=rsa; p=([A-Za-z0-9+/=]+)$/.exec(dkim.value)?.[1];
    assert.ok(p, dkim.value);
    const key = createPublicKey({ key: Buffer.from(p, 'base64'), format: 'der', type: 'spki' });
    assert.equal(key.asymmetricKeyType, 'rsa');
    assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);
    assert.deepEqual(records.find((r) => r.purpose === 'spf'), { type: 'TXT', name: 'mail.example.com', value: 'v=spf1 a:mx.mailroom.example ~all', purpose: 'spf' });
    assert.deepEqual(records.find((r) => r.purpose === 'return_path_mx'), {
      type: 'MX',
      name: 'mr-bounces.mail.example.com',
      value: 'mx.mailroom.example',
      priority: 10,
      purpose: 'return_path_mx',
    });
    assert.equal(records.find((r) => r.purpose === 'dmarc')?.name, '_dmarc.mail.example.com');

    // Each domain has a key and selector of its own.
    const other = dkimOf((await add('other.example.com')).json().data.records);
    assert.notEqual(other.value, dkim.value);
    assert.notEqual(other.name.split('.')[0], dkim.name.split('.')[0]);
  });

  it('converts an internationalised name to its ASCII form', async () => {
    const res = await add('bücher.example');
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().data.domain, 'xn--bcher-kva.example');
  });

  it('answers 409 for a domain already in the workspace, whatever its case', async () => {
    assert.equal((await add('dup.example')).statusCode, 201);
    const res = await add('DUP.example');
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), { success: false, error: 'Domain dup.example already exists in this workspace' });
    // Another workspace may add the same name.
    const other = await t.newWorkspace();
    assert.equal((await t.call('POST', '/v1/domains', { key: other.apiKey, body: { domain: 'dup.example' } })).statusCode, 201);
  });

  for (const bad of ['', 'localhost', 'exa mple.com', '-bad.example', 'bad-.example', 'a..example', '1.2.3.4', 'under_score.example', `${'a'.repeat(64)}.example`, 'http://example.com']) {
    it(`refuses the domain ${JSON.stringify(bad)} with 400`, async () => {
      const res = await add(bad);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { success: false, error: `domain must be a valid domain name such as example.com (got ${JSON.stringify(bad)})` });
    });
  }

  it('refuses a missing or non-string domain', async () => {
    assert.deepEqual((await t.call('POST', '/v1/domains', { body: {} })).json(), { success: false, error: 'domain is required' });
    assert.deepEqual((await t.call('POST', '/v1/domains', { body: { domain: 3 } })).json(), { success: false, error: 'domain must be a string' });
  });

  it('lists the workspace\'s domains with id, domain, status and created_at', async () => {
    const fresh = await t.newWorkspace();
    const created = (await t.call('POST', '/v1/domains', { key: fresh.apiKey, body: { domain: 'listed.example' } })).json().data;
    const res = await t.call('GET', '/v1/domains', { key: fresh.apiKey });
    assert.deepEqual(res.json(), {
      success: true,
      data: [{ id: created.id, domain: 'listed.example', status: 'pending', created_at: created.created_at }],
    });
  });

  describe('verification over DNS', () => {
    it('stays pending while the DKIM record is not published', async () => {
      const created = (await add('unpublished.example')).json().data;
      const res = await t.call('POST', `/v1/domains/${created.id}/verify`);
      assert.equal(res.statusCode, 200);
      const { data } = res.json();
      assert.deepEqual([data.id, data.domain, data.status], [created.id, 'unpublished.example', 'pending']);
      assert.equal(data.error, `No DKIM record found at ${dkimOf(created.records).name}; publish the TXT record listed in records`);
    });

    it('fails when the published DKIM record carries another key', async () => {
      const created = (await add('wrong.example')).json().data;
      const stranger = dkimOf((await add('stranger.example')).json().data.records).value;
      dns.setTxt(dkimOf(created.records).name, [stranger]);
      const { data } = (await t.call('POST', `/v1/domains/${created.id}/verify`)).json();
      assert.equal(data.status, 'failed');
      assert.equal(data.error, `The DKIM record at ${dkimOf(created.records).name} does not match this domain's key; publish the value listed in records`);
      const send = await t.call('POST', '/v1/send', { body: sendBody({ from_email: 'me@wrong.example' }) });
      assert.equal(send.json().data.status, 'failed');
    });

    it('is verified once the DKIM record matches, and then the domain can send', async () => {
      const created = (await add('good.example')).json().data;
      const dkim = dkimOf(created.records);
      assert.equal((await t.call('POST', '/v1/send', { body: sendBody({ from_email: 'Team <team@good.example>' }) })).json().data.status, 'failed');
      // Published as the 255-octet strings a 2048-bit key needs, beside an unrelated TXT record.
      dns.setTxt(dkim.name, ['google-site-verification=abc', dkim.value]);
      const res = await t.call('POST', `/v1/domains/${created.id}/verify`);
      assert.equal(res.statusCode, 200);
      const { data } = res.json();
      assert.deepEqual([data.id, data.domain, data.status, data.error], [created.id, 'good.example', 'verified', null]);
      assert.match(data.verified_at, /Z$/);
      const listed = (await t.call('GET', '/v1/domains')).json().data.find((d: { id: string }) => d.id === created.id);
      assert.equal(listed.status, 'verified');
      const send = await t.call('POST', '/v1/send', { body: sendBody({ from_email: 'Team <team@good.example>' }) });
      assert.deepEqual(send.json().data.status, 'sent');
    });

    it('answers, for every record, whether it was found and whether what is published does its job', async () => {
      const created = (await add('checked.example')).json().data;
      type Checked = { purpose: string; name: string; value: string; check: { found: boolean; matches: boolean; values: string[]; error?: string } };
      const checks = async () =>
        Object.fromEntries(((await t.call('POST', `/v1/domains/${created.id}/verify`)).json().data.records as Checked[]).map((r) => [r.purpose, r.check]));
      const record = (purpose: string) => (created.records as Checked[]).find((r) => r.purpose === purpose)!;
      const missing = { found: false, matches: false, values: [] };
      assert.deepEqual(await checks(), { dkim: missing, spf: missing, return_path_mx: missing, return_path_spf: missing, dmarc: missing });

      // SPF that allows Mailroom's host among others, with a stricter catch-all, does the job; a second SPF policy breaks SPF.
      const mailHost = record('return_path_mx').value;
      const ownSpf = `v=spf1 include:_spf.other.example a:${mailHost.toUpperCase()} -all`;
      dns.setTxt('checked.example', ['google-site-verification=abc', ownSpf]);
      dns.setTxt(record('return_path_spf').name, [ownSpf, 'v=spf1 -all']);
      dns.setMx(record('return_path_mx').name, [{ exchange: 'mx.other.example', priority: 5 }]);
      dns.setTxt(record('dmarc').name, ['v=DMARC1; p=reject']);
      dns.setTxt(record('dkim').name, [dkimOf((await add('other-key.example')).json().data.records).value]);
      const mixed = await checks();
      assert.deepEqual(mixed.spf, { found: true, matches: true, values: [ownSpf] }, 'the unrelated TXT record is not counted');
      assert.deepEqual(mixed.return_path_spf, { found: true, matches: false, values: [ownSpf, 'v=spf1 -all'] });
      assert.deepEqual(mixed.return_path_mx, { found: true, matches: false, values: ['mx.other.example'] });
      assert.deepEqual(mixed.dmarc, { found: true, matches: true, values: ['v=DMARC1; p=reject'] }, "any one DMARC policy: Mailroom's is a suggestion");
      assert.equal(mixed.dkim?.found && !mixed.dkim.matches, true);

      dns.setMx(record('return_path_mx').name, [{ exchange: 'mx.other.example', priority: 5 }, { exchange: mailHost, priority: 10 }]);
      dns.setTxt(record('return_path_spf').name, [record('return_path_spf').value]);
      dns.setTxt(record('dkim').name, [record('dkim').value]);
      const all = await checks();
      assert.deepEqual(Object.entries(all).filter(([, c]) => !c.matches), [], 'every record found and matching');
      assert.equal((await t.call('GET', `/v1/domains/${created.id}`)).json().data.status, 'verified');
    });

    it('keeps the status when the DNS server cannot be reached', async () => {
      const created = (await add('flaky.example')).json().data;
      dns.setTxt(dkimOf(created.records).name, [dkimOf(created.records).value]);
      assert.equal((await t.call('POST', `/v1/domains/${created.id}/verify`)).json().data.status, 'verified');
      const unreachable = await createTestApp({ DNS_SERVERS: '127.0.0.1:1' }, { shareStoreWith: t });
      try {
        const res = await unreachable.call('POST', `/v1/domains/${created.id}/verify`, { key: t.apiKey });
        assert.equal(res.statusCode, 200);
        const { data } = res.json();
        assert.equal(data.status, 'verified');
        assert.match(data.error, /^DNS lookup of mr[0-9a-f]{10}\._domainkey\.flaky\.example failed \(ECONNREFUSED\); try again later$/);
        for (const r of data.records) assert.match(r.check.error, /failed \(ECONNREFUSED\)$/, `${r.purpose}: unknown, not missing`);
      } finally {
        await unreachable.app.close();
        await unreachable.db.destroy();
      }
    });
  });

  it('gives up on a resolver that never answers after the deadline, keeping the status', async () => {
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    const { port } = silent.address();
    const created = (await add('silent.example')).json().data;
    const blackhole = await createTestApp({ DNS_SERVERS: `127.0.0.1:${port}` }, { shareStoreWith: t });
    try {
      const started = Date.now();
      const res = await blackhole.call('POST', `/v1/domains/${created.id}/verify`, { key: t.apiKey });
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= DNS_LOOKUP_DEADLINE_MS - 100 && elapsed < DNS_LOOKUP_DEADLINE_MS + 1500, `took ${elapsed} ms`);
      assert.equal(res.json().data.status, 'pending');
      assert.match(res.json().data.error, /failed \(ETIMEOUT\); try again later$/);
    } finally {
      await blackhole.app.close();
      await blackhole.db.destroy();
      silent.close();
    }
  });

  it('shows one domain with its records, deletes it, then answers 404', async () => {
    const created = (await add('gone.example')).json().data;
    const shown = await t.call('GET', `/v1/domains/${created.id}`);
    assert.equal(shown.statusCode, 200);
    assert.deepEqual(shown.json().data.records, created.records);
    const deleted = await t.call('DELETE', `/v1/domains/${created.id}`);
    assert.deepEqual(deleted.json(), { success: true, data: { id: created.id, deleted: true } });
    for (const [method, url] of [['GET', `/v1/domains/${created.id}`], ['DELETE', `/v1/domains/${created.id}`], ['POST', `/v1/domains/${created.id}/verify`]] as const) {
      const res = await t.call(method, url);
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), { success: false, error: 'Domain not found' });
    }
  });
});
