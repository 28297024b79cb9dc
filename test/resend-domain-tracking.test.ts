/**
 * A domain's tracking through Resend's own Node SDK (the `resend` package): `domains.update` with
 * `openTracking`, `clickTracking` and `trackingSubdomain` sets what PATCH /v1/domains/{id} sets, and
 * `domains.get` shows it with the tracking CNAME as Resend labels it, its status its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startResendHarness, type ResendHarness } from './helpers/resend-harness.js';

const DOMAIN = 'mail.acme.example';

describe('domain tracking through the resend SDK', () => {
  let h: ResendHarness;
  before(async () => {
    h = await startResendHarness(DOMAIN);
  });
  after(() => h.close());

  it('turns the switches on and off, sets and removes the tracking subdomain, and shows them with its CNAME', async () => {
    const created = await h.resend.domains.create({ name: 'news.example.org' });
    assert.equal(created.error, null);
    const id = created.data!.id;
    assert.deepEqual([created.data!.open_tracking, created.data!.click_tracking, created.data!.tracking_subdomain], [false, false, undefined]);

    const updated = await h.resend.domains.update({ id, openTracking: true, clickTracking: true, trackingSubdomain: 'links' });
    assert.deepEqual([updated.error, updated.data], [null, { object: 'domain', id }]);
    const v1 = (await h.t.call('GET', `/v1/domains/${id}`)).json().data;
    assert.deepEqual([v1.open_tracking, v1.click_tracking, v1.tracking_domain, v1.tracking_domain_status], [true, true, 'links.news.example.org', 'pending']);

    const got = (await h.resend.domains.get(id)).data!;
    assert.deepEqual([got.open_tracking, got.click_tracking, got.tracking_subdomain], [true, true, 'links']);
    const tracking = got.records.find((r) => r.record === 'Tracking');
    assert.deepEqual(tracking, { record: 'Tracking', name: 'links.news.example.org', type: 'CNAME', value: h.t.config.mailHostname, ttl: 'Auto', status: 'pending' });

    // Published: the CNAME is verified, the domain (no DKIM record yet) is not.
    h.dns.setCname('links.news.example.org', h.t.config.mailHostname);
    assert.equal((await h.resend.domains.verify(id)).error, null);
    const verified = (await h.resend.domains.get(id)).data!;
    assert.equal(verified.status, 'pending');
    assert.equal(verified.records.find((r) => r.record === 'Tracking')!.status, 'verified');
    assert.ok(verified.records.filter((r) => r.record !== 'Tracking').every((r) => r.status === 'pending'));

    assert.equal((await h.resend.domains.update({ id, openTracking: false })).error, null);
    const half = (await h.resend.domains.get(id)).data!;
    assert.deepEqual([half.open_tracking, half.click_tracking, half.tracking_subdomain], [false, true, 'links'], 'what the update leaves out stays');

    assert.equal((await h.resend.domains.update({ id, trackingSubdomain: '' })).error, null);
    const cleared = (await h.resend.domains.get(id)).data!;
    assert.equal(cleared.tracking_subdomain, undefined);
    assert.equal(cleared.records.some((r) => r.record === 'Tracking'), false);
  });

  it("answers Resend's errors: a bad subdomain, an unsupported option, an unknown domain", async () => {
    const id = (await h.resend.domains.create({ name: 'errors.example.org' })).data!.id;
    const bad = await h.resend.domains.update({ id, trackingSubdomain: 'not valid' });
    assert.deepEqual(bad.error, { statusCode: 422, name: 'validation_error', message: 'tracking_domain must be a valid domain name such as links.errors.example.org (got "not valid.errors.example.org")' });
    const tls = await h.resend.domains.update({ id, tls: 'enforced' });
    assert.deepEqual([tls.error!.statusCode, tls.error!.name, tls.error!.message], [422, 'validation_error', 'tls is not a supported field']);
    const missing = await h.resend.domains.update({ id: 'dom_00000000000000000000000000', openTracking: true });
    assert.deepEqual(missing.error, { statusCode: 404, name: 'not_found', message: 'Domain not found' });
  });
});
