/**
 * A domain's tracking settings through PATCH /v1/domains/{id} (issue 57, point 1): the open and click
 * switches, off by default; the tracking domain, a host under the domain, and its CNAME beside the
 * other records; verification against a real DNS server on loopback judging that CNAME into
 * tracking_domain_status while the domain's own status stays what its DKIM record makes it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const MAIL_HOST = 'mx.mailroom.example';

interface Record {
  type: string;
  name: string;
  value: string;
  purpose: string;
  check?: { found: boolean; matches: boolean; values: string[] };
}

describe('domain tracking settings', () => {
  let t: TestApp;
  let dns: TestDnsServer;
  before(async () => {
    dns = await startDnsServer();
    t = await createTestApp({ DNS_SERVERS: dns.address, MAILROOM_HOSTNAME: MAIL_HOST, RATE_LIMIT_OTHER_PER_MIN: '100000' });
  });
  after(async () => {
    await t.close();
    await dns.close();
  });

  const add = async (domain: string) => (await t.call('POST', '/v1/domains', { body: { domain } })).json().data;
  const patch = (id: string, body: unknown) => t.call('PATCH', `/v1/domains/${id}`, { body });
  const get = async (id: string) => (await t.call('GET', `/v1/domains/${id}`)).json().data;
  const verify = async (id: string) => (await t.call('POST', `/v1/domains/${id}/verify`)).json().data;
  const trackingOf = (d: { open_tracking: boolean; click_tracking: boolean; tracking_domain: string | null; tracking_domain_status: string | null }) => ({
    open_tracking: d.open_tracking,
    click_tracking: d.click_tracking,
    tracking_domain: d.tracking_domain,
    tracking_domain_status: d.tracking_domain_status,
  });
  const OFF = { open_tracking: false, click_tracking: false, tracking_domain: null, tracking_domain_status: null };

  it('starts with both switches off and no tracking domain, and turns each on and off alone', async () => {
    const created = await add('switches.example.com');
    assert.deepEqual(trackingOf(created), OFF);
    assert.deepEqual(trackingOf(await get(created.id)), OFF);

    const opens = await patch(created.id, { open_tracking: true });
    assert.equal(opens.statusCode, 200, opens.body);
    assert.deepEqual(trackingOf(opens.json().data), { ...OFF, open_tracking: true });
    const both = (await patch(created.id, { click_tracking: true })).json().data;
    assert.deepEqual(trackingOf(both), { ...OFF, open_tracking: true, click_tracking: true }, 'a field left out stays as it is');
    assert.deepEqual(both.upstream_ids, [], 'the route untouched');
    assert.deepEqual(trackingOf(await get(created.id)), { ...OFF, open_tracking: true, click_tracking: true });

    assert.deepEqual(trackingOf((await patch(created.id, { open_tracking: false, click_tracking: false })).json().data), OFF);
    assert.deepEqual(trackingOf(await get(created.id)), OFF);
    assert.equal((await patch(created.id, {})).statusCode, 200, 'an empty change changes nothing');

    const listed = (await t.call('GET', '/v1/domains')).json().data.find((d: { id: string }) => d.id === created.id);
    assert.deepEqual(Object.keys(listed).sort(), ['created_at', 'domain', 'id', 'status'], "the list keeps SPEC.md's four fields");
  });

  it('refuses switches that are not booleans, and unknown domains', async () => {
    const { id } = await add('types.example.com');
    assert.deepEqual((await patch(id, { open_tracking: 'yes' })).json(), { success: false, error: 'open_tracking must be a boolean' });
    assert.deepEqual((await patch(id, { click_tracking: 1 })).json(), { success: false, error: 'click_tracking must be a boolean' });
    assert.equal((await patch(id, { tracking_domain: 5 })).statusCode, 400);
    const missing = await patch('dom_00000000000000000000000000', { open_tracking: true });
    assert.deepEqual([missing.statusCode, missing.json().error], [404, 'Domain not found']);
  });

  it('takes a host under the domain as tracking domain, lower-cased and in ASCII, lists its CNAME last, and removes both with null', async () => {
    const created = await add('example.org');
    const set = await patch(created.id, { tracking_domain: 'Links.Example.ORG.' });
    assert.equal(set.statusCode, 200, set.body);
    const data = set.json().data;
    assert.deepEqual(trackingOf(data), { ...OFF, tracking_domain: 'links.example.org', tracking_domain_status: 'pending' });
    assert.deepEqual(data.status, 'pending');
    const records: Record[] = data.records;
    assert.deepEqual(records.map((r) => r.purpose), ['dkim', 'spf', 'return_path_mx', 'return_path_spf', 'dmarc', 'tracking']);
    assert.deepEqual(records.at(-1), { type: 'CNAME', name: 'links.example.org', value: MAIL_HOST, purpose: 'tracking' });
    assert.deepEqual((await get(created.id)).records.at(-1), records.at(-1));

    const idn = (await patch(created.id, { tracking_domain: 'klicks.bücher.example.org' })).json().data;
    assert.equal(idn.tracking_domain, 'klicks.xn--bcher-kva.example.org');

    const cleared = (await patch(created.id, { tracking_domain: null })).json().data;
    assert.deepEqual(trackingOf(cleared), OFF);
    assert.deepEqual(cleared.records.map((r: Record) => r.purpose), ['dkim', 'spf', 'return_path_mx', 'return_path_spf', 'dmarc']);
    assert.deepEqual(trackingOf(await get(created.id)), OFF);
  });

  it('refuses a tracking domain outside the domain, the domain itself, its return path or no host name, and then writes nothing', async () => {
    const { id } = await add('acme.example');
    const refusals: [string, string][] = [
      ['links.other.example', 'tracking_domain must be a subdomain of acme.example such as links.acme.example (got "links.other.example")'],
      ['notacme.example', 'tracking_domain must be a subdomain of acme.example such as links.acme.example (got "notacme.example")'],
      ['ACME.example', "tracking_domain must be a subdomain of acme.example such as links.acme.example, not the domain itself, whose SPF record cannot sit beside a CNAME"],
      ['mr-bounces.acme.example', "tracking_domain cannot be mr-bounces.acme.example, the domain's return path, which receives its bounces"],
      ['links acme.example', 'tracking_domain must be a valid domain name such as links.acme.example (got "links acme.example")'],
      ['', 'tracking_domain must be a valid domain name such as links.acme.example (got "")'],
      ['https://links.acme.example', 'tracking_domain must be a valid domain name such as links.acme.example (got "https://links.acme.example")'],
    ];
    for (const [host, error] of refusals) {
      const res = await patch(id, { open_tracking: true, tracking_domain: host });
      assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error }], host);
    }
    assert.deepEqual(trackingOf(await get(id)), OFF, 'the switch given beside a refused host was not written either');
  });

  describe('verification of the tracking CNAME', () => {
    it('verifies the tracking domain once its CNAME names MAILROOM_HOSTNAME, and leaves the pending domain pending', async () => {
      const created = await add('pending-dkim.example');
      await patch(created.id, { tracking_domain: 'links.pending-dkim.example' });

      const none = await verify(created.id);
      assert.deepEqual([none.status, none.tracking_domain_status], ['pending', 'pending'], 'no CNAME yet');
      assert.deepEqual(none.records.at(-1).check, { found: false, matches: false, values: [] });

      dns.setCname('links.pending-dkim.example', `${MAIL_HOST.toUpperCase()}.`);
      const data = await verify(created.id);
      assert.deepEqual([data.status, data.tracking_domain_status], ['pending', 'verified']);
      assert.match(data.error, /^No DKIM record found at /, "the domain's own verdict, as without tracking");
      const check = data.records.at(-1).check;
      assert.deepEqual([check.found, check.matches, check.values.map((v: string) => v.toLowerCase())], [true, true, [MAIL_HOST]], 'matched whatever its case and final dot');
      const stored = await get(created.id);
      assert.deepEqual([stored.status, stored.tracking_domain_status], ['pending', 'verified']);
    });

    it('fails the tracking domain whose CNAME names another host, and leaves the verified domain verified', async () => {
      const created = await add('verified-dkim.example');
      const dkim = (created.records as Record[]).find((r) => r.purpose === 'dkim')!;
      dns.setTxt(dkim.name, [dkim.value]);
      await patch(created.id, { tracking_domain: 't.verified-dkim.example', click_tracking: true });
      dns.setCname('t.verified-dkim.example', 'tracking.other-provider.example');

      const data = await verify(created.id);
      assert.deepEqual([data.status, data.error, data.tracking_domain_status], ['verified', null, 'failed']);
      assert.deepEqual(data.records.at(-1).check, { found: true, matches: false, values: ['tracking.other-provider.example'] });
      const stored = await get(created.id);
      assert.deepEqual([stored.status, stored.tracking_domain_status, stored.click_tracking], ['verified', 'failed', true]);

      // Another host is pending again, whatever the last one's verdict; the same host keeps its status.
      assert.equal((await patch(created.id, { tracking_domain: 't.verified-dkim.example' })).json().data.tracking_domain_status, 'failed');
      assert.equal((await patch(created.id, { tracking_domain: 'go.verified-dkim.example' })).json().data.tracking_domain_status, 'pending');
      dns.setCname('go.verified-dkim.example', MAIL_HOST);
      assert.deepEqual([(await verify(created.id)).tracking_domain_status, (await get(created.id)).status], ['verified', 'verified']);
    });

    it('checks nothing of tracking for a domain without a tracking domain', async () => {
      const created = await add('untracked.example');
      const data = await verify(created.id);
      assert.deepEqual(trackingOf(data), OFF);
      assert.equal(data.records.some((r: Record) => r.purpose === 'tracking'), false);
    });
  });
});
