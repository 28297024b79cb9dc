/**
 * Issue 55, points 1 and 2: a workspace's upstreams through the real HTTP app — create, list, get,
 * change and delete an SMTP relay and an SES account; their credentials masked in every answer,
 * sealed at rest and never logged; the SSRF rule on relays; the connection test against a real
 * SMTP server with AUTH and the SES emulator; isolation between workspaces; a domain's route
 * (PATCH /v1/domains/{id} upstream_ids) and the attempts it records; `mailroom secrets rotate`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createSecretBox, UPSTREAM_CREDENTIAL } from '../src/lib/secret-box.js';
import { createUpstreamService } from '../src/upstreams/index.js';
import type { HostResolver } from '../src/webhooks/index.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { freePort } from './helpers/free-port.js';
import { mailroomCommand } from './helpers/serve-process.js';
import { startSesEmulator, TEST_ACCESS_KEY_ID, TEST_REGION, TEST_SECRET_ACCESS_KEY, type SesEmulator } from './helpers/ses-emulator.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { addVerifiedDomain } from './helpers/verified-domain.js';
import { waitFor } from './helpers/wait-for.js';

type Workspace = { workspaceId: string; apiKey: string };

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const RELAY = { user: 'relayuser', pass: `relay-pass-${randomBytes(8).toString('hex')}` };
const NOT_FOUND = { success: false, error: 'Upstream not found' };
const NO_ATTEMPTS = { attempts: 0, accepted: 0, temporary: 0, permanent: 0, failed: 0 };
/** The masked form of the emulator's access key id: its first and last four characters. */
const MASKED_KEY_ID = `${TEST_ACCESS_KEY_ID.slice(0, 4)}${'*'.repeat(TEST_ACCESS_KEY_ID.length - 8)}${TEST_ACCESS_KEY_ID.slice(-4)}`;
/** A public address (an IP literal: no DNS in the test); nothing ever connects to it here. */
const PUBLIC_RELAY = 'smtp://mailroom:public-relay-password@93.184.216.34:587';
const PUBLIC_ONLY = 'upstreams may only be public hosts, unless the server runs with UPSTREAM_ALLOW_PRIVATE=true';
const UPSTREAM_KEYS = ['id', 'name', 'type', 'url', 'starttls', 'health', 'last_error', 'last_error_at', 'last_hour', 'domains', 'created_at', 'updated_at'];
const SES_KEYS = ['id', 'name', 'type', 'region', 'access_key_id', 'configuration_set', 'endpoint', 'health', 'last_error', 'last_error_at', 'last_hour', 'domains', 'created_at', 'updated_at'];

describe('upstreams: /v1/upstreams', () => {
  let t: TestApp;
  let relay: SmtpSink;
  let ses: SesEmulator;
  let dns: TestDnsServer;
  /** The relay's URL with its password, as a workspace gives it. */
  let relayUrl: string;

  before(async () => {
    [relay, ses, dns] = await Promise.all([startSmtpSink({ auth: RELAY }), startSesEmulator(), startDnsServer()]);
    relayUrl = `smtp://${RELAY.user}:${RELAY.pass}@127.0.0.1:${relay.port}`;
    // The relay and the emulator listen on loopback: allowed here, refused where UPSTREAM_ALLOW_PRIVATE is unset (below).
    t = await createTestApp({ UPSTREAM_ALLOW_PRIVATE: 'true', RATE_LIMIT_OTHER_PER_MIN: '100000', RATE_LIMIT_SEND_PER_MIN: '100000', DNS_SERVERS: dns.address, WORKER_POLL_MS: '20' }, { worker: true });
  });
  after(async () => {
    await t?.close();
    await Promise.all([relay?.close(), ses?.close(), dns?.close()]);
  });

  const call = (ws: Workspace | undefined, method: string, url: string, body?: unknown) => t.call(method, url, { key: (ws ?? { apiKey: t.apiKey }).apiKey, body });
  const smtpBody = (overrides: Record<string, unknown> = {}) => ({ name: `relay-${randomBytes(3).toString('hex')}`, type: 'smtp', url: relayUrl, ...overrides });
  const sesBody = (overrides: Record<string, unknown> = {}) => ({
    name: `ses-${randomBytes(3).toString('hex')}`,
    type: 'ses',
    region: TEST_REGION,
    access_key_id: TEST_ACCESS_KEY_ID,
    secret_access_key: TEST_SECRET_ACCESS_KEY,
    endpoint: ses.url,
    ...overrides,
  });
  async function created(ws: Workspace | undefined, body: Record<string, unknown>) {
    const res = await call(ws, 'POST', '/v1/upstreams', body);
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data as Record<string, unknown> & { id: string };
  }
  const row = (id: string) => t.db.selectFrom('upstreams').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const opened = (sealed: string | null) => (sealed === null ? null : createSecretBox(t.config.secretKey, UPSTREAM_CREDENTIAL).open(sealed));
  const upstreamCount = async () => Number((await t.db.selectFrom('upstreams').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const testOf = async (ws: Workspace | undefined, id: string) => {
    const res = await call(ws, 'POST', `/v1/upstreams/${id}/test`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data as { ok: boolean; detail: string; duration_ms: number };
  };

  describe('POST /v1/upstreams', () => {
    it('adds an SMTP relay: 201 with the password masked, STARTTLS opportunistic, healthy, no attempts, no domains', async () => {
      const ws = await t.newWorkspace();
      const before = Date.now();
      const res = await call(ws, 'POST', '/v1/upstreams', smtpBody({ name: 'Primary relay' }));
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.headers['x-ratelimit-limit'], '100000', 'drawn on the "other" budget');
      assert.ok(!res.body.includes(RELAY.pass), 'the password is not in the answer');
      const { data } = res.json();
      assert.deepEqual(Object.keys(data), UPSTREAM_KEYS);
      assert.match(data.id, /^ups_[0-9a-z]{26}$/);
      assert.deepEqual(
        { ...data, id: undefined, created_at: undefined, updated_at: undefined },
        {
          id: undefined, name: 'Primary relay', type: 'smtp', url: `smtp://${RELAY.user}:********@127.0.0.1:${relay.port}`, starttls: 'opportunistic',
          health: 'healthy', last_error: null, last_error_at: null, last_hour: NO_ATTEMPTS, domains: [], created_at: undefined, updated_at: undefined,
        },
      );
      assert.match(data.created_at, ISO);
      assert.equal(data.updated_at, data.created_at);
      assert.ok(Date.parse(data.created_at) >= before - 5);

      const stored = await row(data.id);
      assert.equal(stored.workspace_id, ws.workspaceId);
      assert.deepEqual(JSON.parse(stored.settings), { url: `smtp://${RELAY.user}@127.0.0.1:${relay.port}`, starttls: 'opportunistic' });
      assert.match(stored.secret!, /^enc:v1:[A-Za-z0-9+/]+=*$/, 'sealed at rest');
      for (const column of Object.values(stored)) assert.ok(!String(column).includes(RELAY.pass), 'the password is in no column in clear');
      assert.equal(opened(stored.secret), RELAY.pass);
    });

    it('takes smtps://, a STARTTLS policy, a relay without credentials, and fills in the default ports', async () => {
      const ws = await t.newWorkspace();
      const tls = await created(ws, smtpBody({ url: 'smtps://mailer:p%40ss%3Aword@93.184.216.34', starttls: 'required' }));
      assert.deepEqual([tls.url, tls.starttls], ['smtps://mailer:********@93.184.216.34:465', 'required']);
      assert.equal(opened((await row(tls.id)).secret), 'p@ss:word', 'the password as the URL encodes it, decoded');
      const open = await created(ws, smtpBody({ url: 'smtp://93.184.216.34', starttls: 'never' }));
      assert.deepEqual([open.url, open.starttls], ['smtp://93.184.216.34:587', 'never']);
      assert.equal((await row(open.id)).secret, null, 'no password, nothing sealed');
      const slash = await created(ws, smtpBody({ url: 'smtp://93.184.216.34:2525/' }));
      assert.equal(slash.url, 'smtp://93.184.216.34:2525');
    });

    it('adds an SES account: 201 with the access key id masked and no secret access key', async () => {
      const ws = await t.newWorkspace();
      const res = await call(ws, 'POST', '/v1/upstreams', sesBody({ name: 'SES Ireland', configuration_set: 'mailroom-events' }));
      assert.equal(res.statusCode, 201, res.body);
      assert.ok(!res.body.includes(TEST_SECRET_ACCESS_KEY), 'the secret access key is not in the answer');
      assert.ok(!res.body.includes(TEST_ACCESS_KEY_ID), 'nor the whole access key id');
      const { data } = res.json();
      assert.deepEqual(Object.keys(data), SES_KEYS);
      assert.deepEqual(
        [data.name, data.type, data.region, data.access_key_id, data.configuration_set, data.endpoint, data.health, data.last_hour, data.domains],
        ['SES Ireland', 'ses', TEST_REGION, MASKED_KEY_ID, 'mailroom-events', ses.url, 'healthy', NO_ATTEMPTS, []],
      );
      const stored = await row(data.id);
      assert.deepEqual(JSON.parse(stored.settings), { region: TEST_REGION, access_key_id: TEST_ACCESS_KEY_ID, configuration_set: 'mailroom-events', endpoint: ses.url });
      assert.match(stored.secret!, /^enc:v1:/);
      assert.ok(!stored.settings.includes(TEST_SECRET_ACCESS_KEY) && !stored.secret!.includes(TEST_SECRET_ACCESS_KEY));
      assert.equal(opened(stored.secret), TEST_SECRET_ACCESS_KEY);
      const plain = await created(ws, sesBody({ endpoint: undefined }));
      assert.deepEqual([plain.configuration_set, plain.endpoint], [null, null], 'no configuration set, AWS’s own endpoint');
    });

    const badBodies: [string, Record<string, unknown>, string][] = [
      ['no name', { type: 'smtp', url: PUBLIC_RELAY }, 'name is required'],
      ['a blank name', { name: '   ', type: 'smtp', url: PUBLIC_RELAY }, 'name is required'],
      ['a name over 100 characters', { name: 'n'.repeat(101), type: 'smtp', url: PUBLIC_RELAY }, 'name must be at most 100 characters long'],
      ['no type', { name: 'x', url: PUBLIC_RELAY }, 'type is required'],
      ['an unknown type', { name: 'x', type: 'sendgrid' }, 'type must be one of smtp, ses'],
      ['smtp without url', { name: 'x', type: 'smtp' }, 'url is required for an smtp upstream (smtp://user:password@relay.example.com:587)'],
      ['an http url', { name: 'x', type: 'smtp', url: 'http://93.184.216.34' }, 'url must be an smtp:// or smtps:// URL (got http)'],
      ['a url that is not one', { name: 'x', type: 'smtp', url: 'relay.example.com:587' }, 'url must be an smtp:// or smtps:// URL (got relay.example.com)'],
      ['a relative url', { name: 'x', type: 'smtp', url: '/relay' }, 'url must be an smtp:// or smtps:// URL, such as smtp://user:password@relay.example.com:587'],
      ['a url without a host', { name: 'x', type: 'smtp', url: 'smtp://' }, 'url must name a host'],
      ['a url with a path', { name: 'x', type: 'smtp', url: 'smtp://93.184.216.34:587/relay' }, 'url must be only scheme, user, password, host and port'],
      ['a url with a query', { name: 'x', type: 'smtp', url: 'smtp://93.184.216.34:587?tls=1' }, 'url must be only scheme, user, password, host and port'],
      ['a user without a password', { name: 'x', type: 'smtp', url: 'smtp://mailer@93.184.216.34:587' }, 'url names the user mailer without a password: give both (smtp://user:password@relay.example.com:587), or neither'],
      ['a password without a user', { name: 'x', type: 'smtp', url: 'smtp://:secret@93.184.216.34:587' }, 'url has a password but no user: give both (smtp://user:password@relay.example.com:587), or neither'],
      ['a password that is not percent-encoded', { name: 'x', type: 'smtp', url: 'smtp://mailer:100%@93.184.216.34' }, 'url must percent-encode its user and password (a % as %25)'],
      ['an unknown STARTTLS policy', { name: 'x', type: 'smtp', url: PUBLIC_RELAY, starttls: 'sometimes' }, 'starttls must be one of opportunistic, required, never'],
      ['ses fields on smtp', { name: 'x', type: 'smtp', url: PUBLIC_RELAY, region: 'eu-west-1' }, 'region, access_key_id, secret_access_key, configuration_set and endpoint are for an ses upstream'],
      ['smtp fields on ses', { name: 'x', type: 'ses', region: 'eu-west-1', access_key_id: TEST_ACCESS_KEY_ID, secret_access_key: 's', url: PUBLIC_RELAY }, 'url and starttls are for an smtp upstream'],
      ['ses without region', { name: 'x', type: 'ses', access_key_id: TEST_ACCESS_KEY_ID, secret_access_key: 's' }, 'region is required for an ses upstream, as AWS names it (eu-west-1)'],
      ['a region that is not one', { name: 'x', type: 'ses', region: 'Ireland', access_key_id: TEST_ACCESS_KEY_ID, secret_access_key: 's' }, 'region is required for an ses upstream, as AWS names it (eu-west-1)'],
      ['ses without access_key_id', { name: 'x', type: 'ses', region: 'eu-west-1', secret_access_key: 's' }, 'access_key_id is required for an ses upstream (AKIA…)'],
      ['a malformed access_key_id', { name: 'x', type: 'ses', region: 'eu-west-1', access_key_id: 'akia-lower', secret_access_key: 's' }, 'access_key_id is required for an ses upstream (AKIA…)'],
      ['ses without secret_access_key', { name: 'x', type: 'ses', region: 'eu-west-1', access_key_id: TEST_ACCESS_KEY_ID }, 'secret_access_key is required for an ses upstream'],
      ['a bad configuration_set', { name: 'x', type: 'ses', region: 'eu-west-1', access_key_id: TEST_ACCESS_KEY_ID, secret_access_key: 's', configuration_set: 'has spaces' }, 'configuration_set must be 1 to 64 letters, digits, - or _'],
      ['an endpoint with a path', { name: 'x', type: 'ses', region: 'eu-west-1', access_key_id: TEST_ACCESS_KEY_ID, secret_access_key: 's', endpoint: 'https://93.184.216.34/v2' }, 'endpoint must be an http(s) URL with a host only'],
      ['an unknown field', { name: 'x', type: 'smtp', url: PUBLIC_RELAY, password: 'p' }, 'password is not a supported field'],
    ];
    for (const [what, body, error] of badBodies) {
      it(`refuses ${what}: 400 "${error}", nothing stored`, async () => {
        const ws = await t.newWorkspace();
        const count = await upstreamCount();
        const res = await call(ws, 'POST', '/v1/upstreams', body);
        assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error }]);
        assert.equal(await upstreamCount(), count);
      });
    }

    it('refuses a second upstream of the same name in the workspace (409), not in another workspace', async () => {
      const [a, b] = [await t.newWorkspace(), await t.newWorkspace()];
      await created(a, smtpBody({ name: 'backup' }));
      const twice = await call(a, 'POST', '/v1/upstreams', sesBody({ name: 'backup' }));
      assert.deepEqual([twice.statusCode, twice.json()], [409, { success: false, error: 'An upstream named "backup" already exists in this workspace' }]);
      await created(b, smtpBody({ name: 'backup' }));
      assert.equal((await call(a, 'GET', '/v1/upstreams')).json().data.length, 1);
    });
  });

  describe('GET /v1/upstreams and /v1/upstreams/{id}', () => {
    it('lists the workspace’s upstreams oldest first, masked as created; gets each by id', async () => {
      const ws = await t.newWorkspace();
      const relayUp = await created(ws, smtpBody({ name: 'first' }));
      const sesUp = await created(ws, sesBody({ name: 'second' }));
      const list = await call(ws, 'GET', '/v1/upstreams');
      assert.equal(list.statusCode, 200);
      assert.deepEqual(list.json().data, [relayUp, sesUp]);
      for (const shown of [relayUp, sesUp]) {
        const one = await call(ws, 'GET', `/v1/upstreams/${shown.id}`);
        assert.deepEqual([one.statusCode, one.json().data], [200, shown]);
      }
      for (const res of [list, ...(await Promise.all([relayUp, sesUp].map((u) => call(ws, 'GET', `/v1/upstreams/${u.id}`))))]) {
        for (const secret of [RELAY.pass, TEST_SECRET_ACCESS_KEY, TEST_ACCESS_KEY_ID]) assert.ok(!res.body.includes(secret), 'no credential in a read');
      }
      assert.deepEqual((await call(await t.newWorkspace(), 'GET', '/v1/upstreams')).json().data, []);
    });

    it('answers 404 Upstream not found for an unknown id', async () => {
      for (const id of ['ups_01jzzzzzzzzzzzzzzzzzzzzzzz', 'nonsense']) {
        const res = await call(undefined, 'GET', `/v1/upstreams/${id}`);
        assert.deepEqual([res.statusCode, res.json()], [404, NOT_FOUND]);
      }
    });
  });

  describe('PATCH /v1/upstreams/{id}', () => {
    it('renames, changes the policy and the host, keeping the password when the URL gives none for the same user', async () => {
      const ws = await t.newWorkspace();
      const up = await created(ws, smtpBody({ name: 'old name' }));
      const sealedBefore = (await row(up.id)).secret;
      const res = await call(ws, 'PATCH', `/v1/upstreams/${up.id}`, { name: 'new name', starttls: 'required' });
      assert.equal(res.statusCode, 200, res.body);
      const data = res.json().data;
      assert.deepEqual([data.name, data.starttls, data.url, data.created_at], ['new name', 'required', up.url, up.created_at]);
      assert.ok(data.updated_at >= String(up.updated_at));
      assert.equal(opened((await row(up.id)).secret), RELAY.pass);
      // The URL as GET shows it (its password masked), or without the password: the stored one is kept.
      const again = await call(ws, 'PATCH', `/v1/upstreams/${up.id}`, { url: `smtp://${RELAY.user}@127.0.0.1:${relay.port}`, starttls: 'opportunistic' });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(opened((await row(up.id)).secret), RELAY.pass);
      assert.notEqual((await row(up.id)).secret, sealedBefore, 'sealed afresh (a new nonce)');
      assert.equal((await testOf(ws, up.id)).ok, true, 'the kept password still authenticates');
      assert.deepEqual((await call(ws, 'GET', `/v1/upstreams/${up.id}`)).json().data, again.json().data);
    });

    it('takes back the URL as GET shows it, its masked password standing for the stored one', async () => {
      const ws = await t.newWorkspace();
      const up = await created(ws, smtpBody());
      const shown = (await call(ws, 'GET', `/v1/upstreams/${up.id}`)).json().data;
      assert.match(shown.url, /:\*{8}@/);
      const res = await call(ws, 'PATCH', `/v1/upstreams/${up.id}`, { url: shown.url, starttls: 'never' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(opened((await row(up.id)).secret), RELAY.pass, 'the stored password, not the mask');
      assert.equal((await testOf(ws, up.id)).ok, true);
    });

    it('replaces the password with the URL’s, and refuses a new user without one', async () => {
      const ws = await t.newWorkspace();
      const up = await created(ws, smtpBody({ url: `smtp://${RELAY.user}:wrong-password@127.0.0.1:${relay.port}` }));
      assert.equal((await testOf(ws, up.id)).ok, false);
      const fixed = await call(ws, 'PATCH', `/v1/upstreams/${up.id}`, { url: relayUrl });
      assert.equal(fixed.statusCode, 200, fixed.body);
      assert.ok(!fixed.body.includes(RELAY.pass));
      assert.equal(opened((await row(up.id)).secret), RELAY.pass);
      assert.equal((await testOf(ws, up.id)).ok, true);
      const stored = await row(up.id);
      const newUser = await call(ws, 'PATCH', `/v1/upstreams/${up.id}`, { url: `smtp://someone-else@127.0.0.1:${relay.port}` });
      assert.deepEqual(
        [newUser.statusCode, newUser.json()],
        [400, { success: false, error: 'url names the user someone-else without a password: give both (smtp://user:password@relay.example.com:587), or neither' }],
      );
      assert.deepEqual(await row(up.id), stored, 'nothing changed');
      // No user at all: the password goes with it.
      const anonymous = await call(ws, 'PATCH', `/v1/upstreams/${up.id}`, { url: `smtp://127.0.0.1:${relay.port}` });
      assert.equal(anonymous.statusCode, 200, anonymous.body);
      assert.equal((await row(up.id)).secret, null);
      assert.equal(anonymous.json().data.url, `smtp://127.0.0.1:${relay.port}`);
    });

    it('changes an SES account’s secret, configuration set and endpoint; null clears the optional ones', async () => {
      const ws = await t.newWorkspace();
      const up = await created(ws, sesBody({ configuration_set: 'events' }));
      const res = await call(ws, 'PATCH', `/v1/upstreams/${up.id}`, { secret_access_key: 'a-new-secret-access-key', configuration_set: null, region: 'us-east-1' });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(!res.body.includes('a-new-secret-access-key'));
      assert.deepEqual([res.json().data.configuration_set, res.json().data.region, res.json().data.endpoint, res.json().data.access_key_id], [null, 'us-east-1', ses.url, MASKED_KEY_ID]);
      assert.equal(opened((await row(up.id)).secret), 'a-new-secret-access-key');
      const kept = await call(ws, 'PATCH', `/v1/upstreams/${up.id}`, { endpoint: null, name: 'renamed' });
      assert.deepEqual([kept.statusCode, kept.json().data.endpoint, kept.json().data.name], [200, null, 'renamed']);
      assert.equal(opened((await row(up.id)).secret), 'a-new-secret-access-key', 'a change without the secret keeps it');
    });

    it('refuses a change of type, another type’s fields, a bad value and a taken name, changing nothing', async () => {
      const ws = await t.newWorkspace();
      const smtp = await created(ws, smtpBody({ name: 'relay' }));
      const sesUp = await created(ws, sesBody({ name: 'ses' }));
      const refusals: [string, Record<string, unknown>, number, string][] = [
        [smtp.id, { type: 'ses' }, 400, 'type cannot be changed: add a new upstream instead'],
        [sesUp.id, { type: 'smtp', url: PUBLIC_RELAY }, 400, 'type cannot be changed: add a new upstream instead'],
        [smtp.id, { region: 'eu-west-1' }, 400, 'region, access_key_id, secret_access_key, configuration_set and endpoint are for an ses upstream'],
        [smtp.id, { endpoint: null }, 400, 'region, access_key_id, secret_access_key, configuration_set and endpoint are for an ses upstream'],
        [smtp.id, { secret_access_key: 'x' }, 400, 'region, access_key_id, secret_access_key, configuration_set and endpoint are for an ses upstream'],
        [sesUp.id, { url: PUBLIC_RELAY }, 400, 'url and starttls are for an smtp upstream'],
        [sesUp.id, { starttls: 'required' }, 400, 'url and starttls are for an smtp upstream'],
        [smtp.id, { url: 'http://93.184.216.34' }, 400, 'url must be an smtp:// or smtps:// URL (got http)'],
        [smtp.id, { starttls: 'always' }, 400, 'starttls must be one of opportunistic, required, never'],
        [sesUp.id, { region: 'mars-1' }, 400, 'region is required for an ses upstream, as AWS names it (eu-west-1)'],
        [sesUp.id, { secret_access_key: '' }, 400, 'secret_access_key is required for an ses upstream'],
        [smtp.id, { name: '' }, 400, 'name is required'],
        [smtp.id, { name: 'ses' }, 409, 'An upstream named "ses" already exists in this workspace'],
      ];
      for (const [id, body, status, error] of refusals) {
        const before = await row(id);
        const res = await call(ws, 'PATCH', `/v1/upstreams/${id}`, body);
        assert.deepEqual([res.statusCode, res.json()], [status, { success: false, error }], JSON.stringify(body));
        assert.deepEqual(await row(id), before, `${JSON.stringify(body)} changed nothing`);
      }
      const same = await call(ws, 'PATCH', `/v1/upstreams/${smtp.id}`, { type: 'smtp', name: 'relay' });
      assert.equal(same.statusCode, 200, 'naming the type it has, and its own name, is no change of either');
    });

    it('answers 404 for an unknown id', async () => {
      const res = await call(undefined, 'PATCH', '/v1/upstreams/ups_01jzzzzzzzzzzzzzzzzzzzzzzz', { name: 'x' });
      assert.deepEqual([res.statusCode, res.json()], [404, NOT_FOUND]);
    });
  });

  describe('DELETE /v1/upstreams/{id}', () => {
    it('deletes an upstream: 200 {id, deleted}, then 404', async () => {
      const ws = await t.newWorkspace();
      const up = await created(ws, sesBody());
      const res = await call(ws, 'DELETE', `/v1/upstreams/${up.id}`);
      assert.deepEqual([res.statusCode, res.json()], [200, { success: true, data: { id: up.id, deleted: true } }]);
      assert.equal(await t.db.selectFrom('upstreams').select('id').where('id', '=', up.id).executeTakeFirst(), undefined);
      for (const method of ['GET', 'DELETE']) assert.deepEqual((await call(ws, method, `/v1/upstreams/${up.id}`)).json(), NOT_FOUND);
    });
  });

  describe('POST /v1/upstreams/{id}/test', () => {
    it('SMTP: greets and authenticates with the right password, sending nothing: ok', async () => {
      const ws = await t.newWorkspace();
      const up = await created(ws, smtpBody());
      const [authenticated, received] = [relay.authenticated.length, relay.received.length];
      const result = await testOf(ws, up.id);
      assert.equal(result.ok, true, result.detail);
      assert.equal(result.detail, 'Connected, greeted and authenticated: the relay takes Mailroom’s session');
      assert.ok(Number.isInteger(result.duration_ms) && result.duration_ms >= 0);
      assert.deepEqual(relay.authenticated.slice(authenticated), [RELAY.user], 'it authenticated as the URL’s user');
      assert.equal(relay.received.length, received, 'no message');
      assert.ok(!relay.commands.some((c) => /^(MAIL|RCPT|DATA)/i.test(c.line)), 'no transaction');
    });

    it('SMTP: a wrong password is ok:false with the relay’s 535', async () => {
      const ws = await t.newWorkspace();
      const up = await created(ws, smtpBody({ url: `smtp://${RELAY.user}:not-the-password@127.0.0.1:${relay.port}` }));
      const result = await testOf(ws, up.id);
      assert.equal(result.ok, false);
      assert.match(result.detail, /^535 .*Invalid username or password/);
      assert.ok(!result.detail.includes('not-the-password'));
    });

    it('SMTP: nothing listening is ok:false with ECONNREFUSED', async () => {
      const ws = await t.newWorkspace();
      const up = await created(ws, smtpBody({ url: `smtp://${RELAY.user}:${RELAY.pass}@127.0.0.1:${await freePort()}` }));
      const result = await testOf(ws, up.id);
      assert.equal(result.ok, false);
      assert.match(result.detail, /ECONNREFUSED/);
      assert.ok(!result.detail.includes(RELAY.pass));
    });

    it('SES: GetAccount with the account’s keys is ok; an unknown key or a wrong secret is ok:false with SES’s words', async () => {
      const ws = await t.newWorkspace();
      const good = await created(ws, sesBody());
      const reads = ses.accountReads;
      const result = await testOf(ws, good.id);
      assert.deepEqual([result.ok, result.detail], [true, 'SES answered GetAccount with these credentials']);
      assert.ok(ses.accountReads > reads, 'it asked the emulator');
      const unknown = await created(ws, sesBody({ access_key_id: 'AKIAUNKNOWNKEY000042' }));
      const refused = await testOf(ws, unknown.id);
      assert.deepEqual([refused.ok, refused.detail], [false, 'UnrecognizedClientException: The security token included in the request is invalid.']);
      const wrongSecret = await created(ws, sesBody({ secret_access_key: 'not-the-secret-access-key' }));
      const mismatch = await testOf(ws, wrongSecret.id);
      assert.equal(mismatch.ok, false);
      assert.match(mismatch.detail, /^SignatureDoesNotMatch: /);
      assert.ok(!mismatch.detail.includes('not-the-secret-access-key'));
    });

    it('says so when the credential was sealed under another key, and a PATCH giving it again mends it', async () => {
      const ws = await t.newWorkspace();
      const up = await created(ws, smtpBody());
      const otherKey = loadConfig({ MAILROOM_SECRET_KEY: 'f'.repeat(64) }).secretKey;
      await t.db.updateTable('upstreams').set({ secret: createSecretBox(otherKey, UPSTREAM_CREDENTIAL).seal(RELAY.pass) }).where('id', '=', up.id).execute();
      const shown = await call(ws, 'GET', `/v1/upstreams/${up.id}`);
      assert.deepEqual([shown.statusCode, shown.json().data.url], [200, up.url], 'still listed, masked as before');
      const result = await testOf(ws, up.id);
      assert.deepEqual(
        [result.ok, result.detail],
        [false, "The upstream's password or secret access key was encrypted under another key than this server's: give it again (PATCH /v1/upstreams/{id})"],
      );
      const renamed = await call(ws, 'PATCH', `/v1/upstreams/${up.id}`, { name: 'renamed' });
      assert.deepEqual([renamed.statusCode, renamed.json().error], [400, `url names the user ${RELAY.user} without a password: give both (smtp://user:password@relay.example.com:587), or neither`]);
      assert.equal((await call(ws, 'PATCH', `/v1/upstreams/${up.id}`, { url: relayUrl })).statusCode, 200);
      assert.equal((await testOf(ws, up.id)).ok, true);
    });

    it('answers 404 for an unknown id', async () => {
      const res = await call(undefined, 'POST', '/v1/upstreams/ups_01jzzzzzzzzzzzzzzzzzzzzzzz/test');
      assert.deepEqual([res.statusCode, res.json()], [404, NOT_FOUND]);
    });
  });

  describe('workspace isolation', () => {
    it('gives B 404 for every route naming A’s upstream, exactly as for an unknown one, and leaves it untouched', async () => {
      const [a, b] = [await t.newWorkspace('A'), await t.newWorkspace('B')];
      const mine = await created(a, smtpBody({ name: 'a-only' }));
      const stored = await row(mine.id);
      const sessions = new Set(relay.commands.map((c) => c.session)).size;
      const requests: [string, string, unknown][] = [
        ['GET', `/v1/upstreams/${mine.id}`, undefined],
        ['PATCH', `/v1/upstreams/${mine.id}`, { name: 'taken by B' }],
        ['POST', `/v1/upstreams/${mine.id}/test`, undefined],
        ['DELETE', `/v1/upstreams/${mine.id}`, undefined],
      ];
      for (const [method, url, body] of requests) {
        for (const target of [url, url.replace(mine.id, 'ups_01jzzzzzzzzzzzzzzzzzzzzzzz')]) {
          const res = await call(b, method, target, body);
          assert.deepEqual([res.statusCode, res.json()], [404, NOT_FOUND], `${method} ${target}`);
        }
      }
      assert.deepEqual(await row(mine.id), stored);
      assert.equal(new Set(relay.commands.map((c) => c.session)).size, sessions, 'B’s test opened no connection to A’s relay');
      assert.deepEqual((await call(b, 'GET', '/v1/upstreams')).json().data, []);
      assert.deepEqual((await call(a, 'GET', `/v1/upstreams/${mine.id}`)).json().data, mine);
    });
  });

  describe('a domain’s route: PATCH /v1/domains/{id} upstream_ids', () => {
    const addDomain = async (ws: Workspace) => {
      const res = await call(ws, 'POST', '/v1/domains', { domain: `route-${randomBytes(4).toString('hex')}.example` });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().data as { id: string; domain: string; upstream_ids: string[] };
    };
    const route = (ws: Workspace, domainId: string, upstreamIds: unknown) => call(ws, 'PATCH', `/v1/domains/${domainId}`, { upstream_ids: upstreamIds });
    const stored = async (domainId: string) => (await t.db.selectFrom('domains').select('upstream_ids').where('id', '=', domainId).executeTakeFirstOrThrow()).upstream_ids;

    it('sets the route in the order given, shows it on the domain and on each upstream, and clears it with []', async () => {
      const ws = await t.newWorkspace();
      const domain = await addDomain(ws);
      assert.deepEqual(domain.upstream_ids, [], 'a new domain goes through the server’s upstreams');
      const [first, second] = [await created(ws, smtpBody()), await created(ws, sesBody())];
      const res = await route(ws, domain.id, [second.id, first.id]);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().data.upstream_ids, [second.id, first.id]);
      assert.deepEqual(res.json().data.records, (await call(ws, 'GET', `/v1/domains/${domain.id}`)).json().data.records, 'the rest of the domain as GET shows it');
      assert.deepEqual((await call(ws, 'GET', `/v1/domains/${domain.id}`)).json().data.upstream_ids, [second.id, first.id]);
      for (const up of [first, second]) assert.deepEqual((await call(ws, 'GET', `/v1/upstreams/${up.id}`)).json().data.domains, [{ id: domain.id, domain: domain.domain }]);
      const reordered = await route(ws, domain.id, [first.id, second.id]);
      assert.deepEqual(reordered.json().data.upstream_ids, [first.id, second.id]);
      const cleared = await route(ws, domain.id, []);
      assert.deepEqual([cleared.statusCode, cleared.json().data.upstream_ids], [200, []]);
      assert.equal(await stored(domain.id), null);
      assert.deepEqual((await call(ws, 'GET', `/v1/upstreams/${first.id}`)).json().data.domains, []);
      const untouched = await call(ws, 'PATCH', `/v1/domains/${domain.id}`, {});
      assert.deepEqual([untouched.statusCode, untouched.json().data.upstream_ids], [200, []], 'a PATCH without upstream_ids changes nothing');
    });

    it('refuses an unknown upstream, another workspace’s, the same one twice, too many and a wrong type, changing nothing', async () => {
      const [ws, other] = [await t.newWorkspace(), await t.newWorkspace()];
      const domain = await addDomain(ws);
      const own = await created(ws, smtpBody());
      const theirs = await created(other, smtpBody());
      assert.equal((await route(ws, domain.id, [own.id])).statusCode, 200);
      const six = await Promise.all([1, 2, 3, 4, 5].map(() => created(ws, smtpBody())));
      const refusals: [unknown, string][] = [
        [['ups_01jzzzzzzzzzzzzzzzzzzzzzzz'], 'upstream_ids names "ups_01jzzzzzzzzzzzzzzzzzzzzzzz", which is not an upstream of this workspace'],
        [[own.id, theirs.id], `upstream_ids names "${theirs.id}", which is not an upstream of this workspace`],
        [[own.id, own.id], 'upstream_ids must name each upstream once'],
        [[own.id, ...six.map((u) => u.id)], 'upstream_ids may name at most 5 upstreams'],
        [own.id, 'upstream_ids must be an array'],
        [[42], 'upstream_ids[0] must be a string'],
      ];
      for (const [ids, error] of refusals) {
        const res = await route(ws, domain.id, ids);
        assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error }], JSON.stringify(ids));
        assert.equal(await stored(domain.id), JSON.stringify([own.id]), 'the route is as it was');
      }
      const unknownField = await call(ws, 'PATCH', `/v1/domains/${domain.id}`, { status: 'verified' });
      assert.equal(unknownField.statusCode, 400);
    });

    it('answers 404 for another workspace’s domain, routing nothing', async () => {
      const [a, b] = [await t.newWorkspace(), await t.newWorkspace()];
      const domain = await addDomain(a);
      const up = await created(b, smtpBody());
      const res = await route(b, domain.id, [up.id]);
      assert.deepEqual([res.statusCode, res.json()], [404, { success: false, error: 'Domain not found' }]);
      assert.equal(await stored(domain.id), null);
    });

    it('refuses to delete an upstream a domain routes through (409 naming the domain), and deletes it once the route is cleared', async () => {
      const ws = await t.newWorkspace();
      const [one, two] = [await addDomain(ws), await addDomain(ws)];
      const up = await created(ws, smtpBody());
      const spare = await created(ws, sesBody());
      await route(ws, one.id, [up.id, spare.id]);
      await route(ws, two.id, [up.id]);
      const refused = await call(ws, 'DELETE', `/v1/upstreams/${up.id}`);
      const [first, second] = [one.domain, two.domain].sort();
      assert.deepEqual(
        [refused.statusCode, refused.json()],
        [409, { success: false, error: `Upstream ${up.id} is on the route of ${first}, ${second}: take it off first (PATCH /v1/domains/{id})` }],
      );
      assert.equal((await call(ws, 'GET', `/v1/upstreams/${up.id}`)).statusCode, 200, 'still there');
      await route(ws, one.id, [spare.id]);
      assert.equal((await call(ws, 'DELETE', `/v1/upstreams/${up.id}`)).statusCode, 409, 'still on the route of the other');
      await route(ws, two.id, []);
      const deleted = await call(ws, 'DELETE', `/v1/upstreams/${up.id}`);
      assert.deepEqual([deleted.statusCode, deleted.json().data], [200, { id: up.id, deleted: true }]);
      assert.deepEqual((await call(ws, 'GET', `/v1/domains/${one.id}`)).json().data.upstream_ids, [spare.id]);
    });

    it('records each attempt’s upstream: the domain’s own relay (ups_…), the server’s provider otherwise; counted in last_hour', async () => {
      const ws = await t.newWorkspace();
      // addVerifiedDomain works in the app's first workspace.
      const domain = await addVerifiedDomain(t, dns, `routed-${randomBytes(3).toString('hex')}.example`);
      const up = await created(undefined, smtpBody());
      assert.equal((await route({ apiKey: t.apiKey, workspaceId: t.workspaceId }, domain.id, [up.id])).statusCode, 200);
      const received = relay.received.length;
      const routed = await call(undefined, 'POST', '/v1/send', { from_email: `hello@${(await call(undefined, 'GET', `/v1/domains/${domain.id}`)).json().data.domain}`, to: ['routed@example.com'], subject: 'Routed', text: 'Through the relay' });
      assert.equal(routed.json().data.status, 'sent', routed.body);
      const sandboxed = await call(ws, 'POST', '/v1/send', { from_email: 'hello@sandbox.mailroom.test', to: ['sandboxed@example.com'], subject: 'Not routed', text: 'Through the server’s provider' });
      assert.equal(sandboxed.json().data.status, 'sent', sandboxed.body);
      const attemptOf = (messageId: string) =>
        waitFor(() => t.db.selectFrom('delivery_attempts').select(['upstream', 'provider', 'outcome']).where('message_id', '=', messageId).executeTakeFirst(), `an attempt at ${messageId}`);
      assert.deepEqual(await attemptOf(routed.json().data.message_id), { upstream: up.id, provider: 'smtp', outcome: 'accepted' });
      assert.deepEqual(await attemptOf(sandboxed.json().data.message_id), { upstream: 'server:sandbox', provider: 'sandbox', outcome: 'delivered' });
      const shownAttempts = async (ws: Workspace | undefined, messageId: string) =>
        (await call(ws, 'GET', `/v1/messages/${messageId}`)).json().data.recipients[0].attempts.map((a: { upstream: string; provider: string }) => [a.provider, a.upstream]);
      assert.deepEqual(await shownAttempts(undefined, routed.json().data.message_id), [['smtp', up.id]], 'the message’s attempts name the upstream');
      assert.deepEqual(await shownAttempts(ws, sandboxed.json().data.message_id), [['sandbox', 'server:sandbox']]);
      assert.equal(relay.received.length, received + 1, 'the routed send went through the workspace’s relay');
      assert.deepEqual(relay.received.at(-1)!.envelope.rcptTo.map((r) => r.address), ['routed@example.com']);
      const shown = (await call(undefined, 'GET', `/v1/upstreams/${up.id}`)).json().data;
      assert.deepEqual(shown.last_hour, { attempts: 1, accepted: 1, temporary: 0, permanent: 0, failed: 0 });
      assert.equal(shown.health, 'healthy');
    });
  });

  describe('credentials in the log', () => {
    it('never writes a password or secret access key to the log, even at trace level', async () => {
      const lines: string[] = [];
      const app = await buildApp({ config: t.config, services: t.services, logger: { level: 'trace', stream: { write: (line: string) => void lines.push(line) } } });
      try {
        const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) => app.inject({ method, url, headers: { 'x-api-key': t.apiKey }, ...(payload ? { payload } : {}) });
        const smtp = (await call('POST', '/v1/upstreams', smtpBody())).json().data;
        const sesUp = (await call('POST', '/v1/upstreams', sesBody())).json().data;
        await call('PATCH', `/v1/upstreams/${smtp.id}`, { url: `smtp://${RELAY.user}:second-${RELAY.pass}@127.0.0.1:${relay.port}` });
        await call('POST', `/v1/upstreams/${smtp.id}/test`);
        await call('PATCH', `/v1/upstreams/${smtp.id}`, { url: relayUrl });
        await call('POST', `/v1/upstreams/${smtp.id}/test`);
        await call('PATCH', `/v1/upstreams/${sesUp.id}`, { secret_access_key: `second-${TEST_SECRET_ACCESS_KEY}` });
        await call('POST', `/v1/upstreams/${sesUp.id}/test`);
        await call('GET', '/v1/upstreams');
        await call('GET', `/v1/upstreams/${smtp.id}`);
        // Refused bodies that carry a credential.
        await call('POST', '/v1/upstreams', { ...smtpBody(), url: `http://user:${RELAY.pass}@93.184.216.34` });
        await call('POST', '/v1/upstreams', { ...sesBody(), region: 'nowhere', secret_access_key: TEST_SECRET_ACCESS_KEY });
        await call('POST', '/v1/upstreams', { ...smtpBody(), url: `smtp://user:${RELAY.pass}@93.184.216.34`, extra: TEST_SECRET_ACCESS_KEY });
        assert.ok(lines.length > 10, 'something was logged');
        const log = lines.join('');
        for (const secret of [RELAY.pass, TEST_SECRET_ACCESS_KEY, encodeURIComponent(TEST_SECRET_ACCESS_KEY)]) assert.ok(!log.includes(secret), `${secret} in the log`);
        assert.ok(!log.includes(TEST_ACCESS_KEY_ID), 'nor the whole access key id');
        assert.ok(!log.includes(t.apiKey), 'nor the API key');
      } finally {
        await app.close();
      }
    });
  });
});

describe('upstreams on a server that keeps relays to public hosts (UPSTREAM_ALLOW_PRIVATE unset)', () => {
  let t: TestApp;
  let app: App;
  /** What the injected resolver answers for each name. */
  const names = new Map<string, string[]>([
    ['relay.internal.example', ['127.0.0.1']],
    ['mixed.example', ['93.184.216.34', '10.0.0.7']],
    ['relay.public.example', ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']],
  ]);
  const resolveHost: HostResolver = async (host) => {
    const found = names.get(host);
    if (!found) throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
    return found;
  };

  before(async () => {
    t = await createTestApp({ RATE_LIMIT_OTHER_PER_MIN: '100000' });
    assert.equal(t.config.upstreamAllowPrivate, false);
    // The app as serve builds it, its upstream service resolving names through the test's resolver.
    app = await buildApp({ config: t.config, services: { ...t.services, upstreams: createUpstreamService(t.store, t.config, { resolveHost }) } });
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await t?.close();
  });

  const call = (method: string, url: string, payload?: object) =>
    app.inject({ method: method as 'POST', url, headers: { 'x-api-key': t.apiKey }, ...(payload ? { payload } : {}) });
  const smtp = (url: string) => ({ name: `relay-${randomBytes(3).toString('hex')}`, type: 'smtp', url });

  const refused: [string, Record<string, unknown>, string][] = [
    ['a loopback relay', smtp('smtp://user:pw@127.0.0.1:25'), 'The upstream points to 127.0.0.1, a loopback address'],
    ['a private relay', smtp('smtp://10.1.2.3:587'), 'The upstream points to 10.1.2.3, a private address'],
    ['the cloud metadata address', smtp('smtps://169.254.169.254'), 'The upstream points to 169.254.169.254, a cloud metadata address'],
    ['an IPv6 loopback relay', smtp('smtp://[::1]:25'), 'The upstream points to ::1, a loopback address'],
    ['a name resolving to loopback', smtp('smtp://relay.internal.example:587'), "The upstream's host relay.internal.example resolves to 127.0.0.1, a loopback address"],
    ['a name with one private address among public ones', smtp('smtp://mixed.example'), "The upstream's host mixed.example resolves to 10.0.0.7, a private address"],
    [
      'an SES endpoint on loopback',
      { name: 'ses', type: 'ses', region: 'eu-west-1', access_key_id: TEST_ACCESS_KEY_ID, secret_access_key: 's', endpoint: 'http://127.0.0.1:4579' },
      'The upstream points to 127.0.0.1, a loopback address',
    ],
  ];
  for (const [what, body, error] of refused) {
    it(`refuses ${what} with 400, storing nothing`, async () => {
      const res = await call('POST', '/v1/upstreams', body);
      assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error: `${error}; ${PUBLIC_ONLY}` }]);
      assert.deepEqual((await call('GET', '/v1/upstreams')).json().data.filter((u: { name: string }) => u.name === body.name), []);
    });
  }

  it('refuses a name that does not resolve', async () => {
    const res = await call('POST', '/v1/upstreams', smtp('smtp://nowhere.example:587'));
    assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error: "The upstream's host nowhere.example could not be resolved (ENOTFOUND)" }]);
  });

  it('refuses localhost through the system resolver, as the server itself checks', async () => {
    const res = await t.call('POST', '/v1/upstreams', { body: smtp('smtp://localhost:25') });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().error, /^The upstream's host localhost resolves to (127\.0\.0\.1|::1), a loopback address; upstreams may only be public hosts, unless the server runs with UPSTREAM_ALLOW_PRIVATE=true$/);
  });

  it('takes public hosts, and refuses a change, or a test, once the host would reach a private address', async () => {
    const literal = await call('POST', '/v1/upstreams', smtp(PUBLIC_RELAY));
    assert.equal(literal.statusCode, 201, literal.body);
    const named = await call('POST', '/v1/upstreams', smtp('smtp://user:pw@relay.public.example:587'));
    assert.equal(named.statusCode, 201, named.body);
    const id = named.json().data.id;
    const before = await t.db.selectFrom('upstreams').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const moved = await call('PATCH', `/v1/upstreams/${id}`, { url: 'smtp://user:pw@relay.internal.example:587' });
    assert.deepEqual([moved.statusCode, moved.json().error], [400, `The upstream's host relay.internal.example resolves to 127.0.0.1, a loopback address; ${PUBLIC_ONLY}`]);
    assert.deepEqual(await t.db.selectFrom('upstreams').selectAll().where('id', '=', id).executeTakeFirstOrThrow(), before);
    // The name now resolves to the metadata address (DNS rebinding): the test refuses to connect.
    names.set('relay.public.example', ['169.254.169.254']);
    const tested = await call('POST', `/v1/upstreams/${id}/test`);
    assert.deepEqual([tested.statusCode, tested.json().error], [400, `The upstream's host relay.public.example resolves to 169.254.169.254, a cloud metadata address; ${PUBLIC_ONLY}`]);
  });

  it('takes a loopback relay where UPSTREAM_ALLOW_PRIVATE=true', async () => {
    const allowed = createUpstreamService(t.store, { ...t.config, upstreamAllowPrivate: true }, { resolveHost });
    for (const url of ['smtp://user:pw@127.0.0.1:25', 'smtp://10.1.2.3:587', 'smtp://169.254.169.254', 'smtp://relay.internal.example']) {
      const up = await allowed.create(t.workspaceId, { ...smtp(url) });
      assert.equal(up.type, 'smtp', url);
    }
  });
});

describe('mailroom secrets rotate and upstreams', () => {
  let store: FreshStore;
  let relay: SmtpSink;
  before(async () => {
    [store, relay] = await Promise.all([freshStore(), startSmtpSink({ auth: RELAY })]);
  });
  after(async () => {
    await relay?.close();
    await store?.drop();
  });

  it('re-seals every upstream’s password and secret access key under the new key; the upstreams still authenticate', async () => {
    const env = { UPSTREAM_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'error' };
    const t = await createTestApp(env, { shareStoreWith: { storeEnv: store.env } as TestApp });
    const smtp = (await t.call('POST', '/v1/upstreams', { body: { name: 'relay', type: 'smtp', url: `smtp://${RELAY.user}:${RELAY.pass}@127.0.0.1:${relay.port}` } })).json().data;
    const ses = (await t.call('POST', '/v1/upstreams', { body: { name: 'ses', type: 'ses', region: TEST_REGION, access_key_id: TEST_ACCESS_KEY_ID, secret_access_key: TEST_SECRET_ACCESS_KEY } })).json().data;
    const open = (await t.call('POST', '/v1/upstreams', { body: { name: 'open relay', type: 'smtp', url: 'smtp://127.0.0.1:25' } })).json().data;
    const sealed = async (db: TestApp['db']) => Object.fromEntries((await db.selectFrom('upstreams').select(['id', 'secret']).execute()).map((r) => [r.id, r.secret]));
    const before = await sealed(t.db);
    const apiKey = t.apiKey;
    await t.close();
    const keyFile = join(store.dataDir, 'secret.key');
    const oldKey = loadConfig({ MAILROOM_SECRET_KEY: readFileSync(keyFile, 'utf8').trim() }).secretKey;

    const res = mailroomCommand(['secrets', 'rotate'], store.env);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /^Re-encrypted \d+ secrets under the new key\./);

    const again = await createTestApp(env, { shareStoreWith: { storeEnv: store.env } as TestApp });
    try {
      const after = await sealed(again.db);
      const box = createSecretBox(again.config.secretKey, UPSTREAM_CREDENTIAL);
      const oldBox = createSecretBox(oldKey, UPSTREAM_CREDENTIAL);
      for (const [id, clear] of [[smtp.id, RELAY.pass], [ses.id, TEST_SECRET_ACCESS_KEY]] as const) {
        assert.match(after[id]!, /^enc:v1:/);
        assert.notEqual(after[id], before[id], 'sealed anew');
        assert.equal(box.open(after[id]!), clear);
        assert.throws(() => oldBox.open(after[id]!), 'the old key opens it no more');
      }
      assert.equal(after[open.id], null, 'a relay without a password has nothing to re-seal');
      // In the first app's workspace: the second app made one of its own.
      const tested = await again.call('POST', `/v1/upstreams/${smtp.id}/test`, { key: apiKey });
      assert.equal(tested.statusCode, 200, tested.body);
      assert.equal(tested.json().data.ok, true, tested.body);
    } finally {
      await again.close();
    }
  });
});
