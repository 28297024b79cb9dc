/**
 * A workspace's domains through the dashboard API (dashboard/domain-routes.ts), against a real DNS
 * server on loopback: the same service as /v1/domains, the role checked on the server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MemberRole } from '../src/db/schema.js';
import { dashboardRequest, dashboardSignIn } from './helpers/dashboard-client.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const PASSWORD = 'correct horse 7';

describe('domains in the dashboard API', () => {
  let t: TestApp;
  let dns: TestDnsServer;
  let round = 0;
  before(async () => {
    dns = await startDnsServer();
    t = await createTestApp({ DNS_SERVERS: dns.address });
  });
  after(async () => {
    await t.close();
    await dns.close();
  });

  async function member(role: MemberRole) {
    const email = `${role}${++round}@example.com`;
    await t.services.users.create({ email, password: PASSWORD, workspaceId: t.workspaceId, role });
    return dashboardSignIn(t, email, PASSWORD);
  }
  const domains = `/workspaces/${'WS'}/domains`;
  const path = (suffix = '') => `${domains.replace('WS', t.workspaceId)}${suffix}`;

  it('adds a domain with its records, verifies it once the DKIM record is published, and deletes it', async () => {
    const dev = await member('developer');
    const added = await dashboardRequest(t, 'POST', path(), { ...dev, body: { domain: 'news.acme.example' } });
    assert.equal(added.statusCode, 201, added.body);
    const domain = added.json().data;
    assert.equal(domain.status, 'pending');
    const dkim = domain.records.find((r: { purpose: string }) => r.purpose === 'dkim');

    const early = (await dashboardRequest(t, 'POST', path(`/${domain.id}/verify`), dev)).json().data;
    assert.equal(early.status, 'pending');
    assert.match(early.error, /No DKIM record found/);
    dns.setTxt(dkim.name, [dkim.value]);
    const verified = (await dashboardRequest(t, 'POST', path(`/${domain.id}/verify`), dev)).json().data;
    assert.deepEqual([verified.status, verified.error], ['verified', null]);
    assert.equal((await t.call('GET', `/v1/domains/${domain.id}`)).json().data.status, 'verified', 'the same domain /v1 sees');

    const deleted = await dashboardRequest(t, 'DELETE', path(`/${domain.id}`), dev);
    assert.deepEqual(deleted.json().data, { id: domain.id, deleted: true });
  });

  it("lets a viewer read domains but not add, verify or delete one; another workspace's answer 404", async () => {
    const viewer = await member('viewer');
    assert.equal((await dashboardRequest(t, 'GET', path(), viewer)).statusCode, 200);
    const forged = await dashboardRequest(t, 'POST', path(), { ...viewer, body: { domain: 'x.acme.example' } });
    assert.deepEqual([forged.statusCode, forged.json().error], [403, 'A viewer of this workspace cannot do this']);
    const other = await t.newWorkspace();
    const res = await dashboardRequest(t, 'GET', `/workspaces/${other.workspaceId}/domains`, viewer);
    assert.deepEqual([res.statusCode, res.json().error], [404, 'Workspace not found']);
  });

  it('lets developers set tracking, lists it with each domain, and lets a viewer read it but not change it', async () => {
    const dev = await member('developer');
    const domain = (await dashboardRequest(t, 'POST', path(), { ...dev, body: { domain: 'tracked.acme.example' } })).json().data;
    const body = { open_tracking: true, click_tracking: true, tracking_domain: 'links.tracked.acme.example' };
    const set = await dashboardRequest(t, 'PATCH', path(`/${domain.id}`), { ...dev, body });
    assert.equal(set.statusCode, 200, set.body);
    assert.deepEqual(set.json().data.records.at(-1), { type: 'CNAME', name: 'links.tracked.acme.example', value: t.config.mailHostname, purpose: 'tracking' });

    const viewer = await member('viewer');
    const listed = ((await dashboardRequest(t, 'GET', path(), viewer)).json().data as { id: string }[]).find((d) => d.id === domain.id);
    assert.deepEqual(listed, { ...listed, ...body, tracking_domain_status: 'pending' });
    for (const change of [{ open_tracking: false }, { click_tracking: false }, { tracking_domain: null }]) {
      const refused = await dashboardRequest(t, 'PATCH', path(`/${domain.id}`), { ...viewer, body: change });
      assert.deepEqual([refused.statusCode, refused.json().error], [403, 'A viewer of this workspace cannot do this'], JSON.stringify(change));
    }
    const after = (await dashboardRequest(t, 'GET', path(`/${domain.id}`), viewer)).json().data;
    assert.deepEqual([after.open_tracking, after.click_tracking, after.tracking_domain], [true, true, 'links.tracked.acme.example'], 'unchanged');
  });

  it('says when MAILROOM_HOSTNAME, which every MX and SPF record names, is not a name public DNS can use', async () => {
    const warning = (name: string) =>
      `MAILROOM_HOSTNAME is "${name}", not a fully qualified domain name: the DNS records Mailroom suggests (return-path MX, SPF) will be wrong; set MAILROOM_HOSTNAME to this machine's public name, e.g. mail.example.com`;
    for (const [hostname, expected] of [['vm', warning('vm')], ['box.local', warning('box.local')], ['mail.acme.example', null]] as const) {
      const app = await createTestApp({ DNS_SERVERS: dns.address, MAILROOM_HOSTNAME: hostname }, { shareStoreWith: t });
      try {
        const email = `host-${hostname}@example.com`;
        await app.services.users.create({ email, password: PASSWORD, workspaceId: t.workspaceId, role: 'viewer' });
        const viewer = await dashboardSignIn(app, email, PASSWORD);
        const res = await dashboardRequest(app, 'GET', `/workspaces/${t.workspaceId}/record-host`, viewer);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().data, { mail_hostname: hostname, warning: expected }, hostname);
        const added = (await app.call('POST', '/v1/domains', { key: t.apiKey, body: { domain: `${hostname.replace(/\./g, '-')}.acme.example` } })).json().data;
        const mx = added.records.find((r: { purpose: string }) => r.purpose === 'return_path_mx');
        assert.equal(mx.value, hostname, 'the host the answer names is the one the records use');
        assert.equal((await dashboardRequest(app, 'GET', `/workspaces/${t.workspaceId}/record-host`)).statusCode, 401, 'signed out');
        const other = await app.newWorkspace();
        assert.equal((await dashboardRequest(app, 'GET', `/workspaces/${other.workspaceId}/record-host`, viewer)).statusCode, 404, 'not a member');
      } finally {
        await app.close();
      }
    }
  });
});
