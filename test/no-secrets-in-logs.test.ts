/**
 * Issue 18 point 5: no secret ever appears in a log line. A real `mailroom
 * serve` at LOG_LEVEL=trace (everything pino has), relaying through a real SMTP
 * server that requires AUTH, is driven through the main scenarios: the CLI's
 * workspace, sends by /v1, /compat/resend and SMTP submission, a domain
 * verified on a real DNS server, API keys, a webhook delivered to a real
 * receiver and its secret rotated, the dashboard's first-run setup, sign-in,
 * CSRF-guarded calls and an invitation link, refused keys and metrics tokens.
 * Then every line it (and each CLI command) wrote is scanned for every secret
 * it was given or handed out. The one line let through is the setup link the
 * first start prints on purpose (docs/secrets-and-backups.md: the link is how the first admin gets
 * in); its token may appear nowhere else.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { loadConfig } from '../src/config.js';
import { createSecretBox, DKIM_PRIVATE_KEY } from '../src/lib/secret-box.js';
import { openMigratedDatabase } from '../src/composition/store-runtime.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { freePort } from './helpers/free-port.js';
import { mailroomCommand, startServe, type ServeProcess } from './helpers/serve-process.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { migratedStore, TEST_STORE, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const SETUP_LINE = /open (http:\/\/\S+\/setup\?token=(\S+)) within an hour/;
const DOMAIN = `logscan${randomBytes(3).toString('hex')}.example`;
const FROM = `hello@${DOMAIN}`;
const ADMIN = { email: 'ada@example.com', password: 'admin password 12' };
const INVITEE = { email: 'grace@example.com', password: 'invitee password 34' };
const RELAY = { user: 'relayuser', pass: `relaypass${randomBytes(8).toString('hex')}` };
const DB_PASSWORD = `dbpass${randomBytes(8).toString('hex')}`;
const SECRET_KEY = randomBytes(32).toString('base64');
const METRICS_TOKEN = `metrics${randomBytes(12).toString('hex')}`;
/** The relay refuses it: its bounce is the event the webhook is delivered. */
const BOUNCING = 'gone@example.com';

/** AUTH PLAIN's argument (RFC 4616), as a protocol transcript would show it. */
const authPlain = (user: string, pass: string) => Buffer.from(`\0${user}\0${pass}`).toString('base64');

/** Every secret the run made or was given, by what it is; scanned for in every log line. */
class Secrets {
  readonly all = new Map<string, string>();
  add(name: string, value: string | undefined): string {
    assert.ok(value && value.length >= 8, `${name}: no value to look for (${value})`);
    this.all.set(name, value);
    return value;
  }
  /** The line with each secret it holds masked, and the names of those secrets. */
  findIn(line: string): { names: string[]; masked: string } {
    const names: string[] = [];
    let masked = line;
    for (const [name, value] of this.all) {
      if (!line.includes(value)) continue;
      names.push(name);
      masked = masked.split(value).join(`[${name}]`);
    }
    return { names, masked };
  }
}

describe('no secret in any log line (LOG_LEVEL=trace, the main scenarios)', () => {
  const secrets = new Secrets();
  let store: FreshStore;
  let relay: SmtpSink;
  let dns: TestDnsServer;
  let receiver: WebhookReceiver;
  let env: Record<string, string>;
  let server: ServeProcess | undefined;
  /** What the CLI commands wrote to stderr (their stdout is their answer, which shows a key on purpose). */
  let cliLog = '';

  before(async () => {
    store = await migratedStore();
    [relay, dns, receiver] = await Promise.all([startSmtpSink({ auth: RELAY, policy: (address) => (address === BOUNCING ? { code: 550, text: '5.1.1 No such user' } : undefined) }), startDnsServer(), startWebhookReceiver()]);
    const storeEnv = { ...store.env };
    if (TEST_STORE === 'postgres') {
      // Trust authentication here accepts any password: the URL carries one, as a production one does.
      const url = new URL(store.env.DATABASE_URL!);
      url.password = secrets.add('the DATABASE_URL password', DB_PASSWORD);
      storeEnv.DATABASE_URL = url.toString();
    }
    secrets.add('the SMTP_URL password', RELAY.pass);
    secrets.add("the SMTP relay's AUTH PLAIN", authPlain(RELAY.user, RELAY.pass));
    secrets.add('MAILROOM_SECRET_KEY', SECRET_KEY);
    secrets.add('METRICS_TOKEN', METRICS_TOKEN);
    secrets.add("the admin's password", ADMIN.password);
    secrets.add("the invitee's password", INVITEE.password);
    env = {
      ...storeEnv,
      LOG_LEVEL: 'trace',
      MAILROOM_PROVIDER: 'smtp',
      SMTP_URL: `smtp://${RELAY.user}:${RELAY.pass}@127.0.0.1:${relay.port}`,
      MAILROOM_SECRET_KEY: SECRET_KEY,
      METRICS_TOKEN,
      DNS_SERVERS: dns.address,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WORKER_POLL_MS: '50',
      SUBMISSION_PORT: String(await freePort()),
    };
  });
  after(async () => {
    await server?.stop();
    await Promise.all([relay?.close(), dns?.close(), receiver?.close()]);
    await store?.drop();
  });

  /** A `mailroom` command at the same settings: its JSON answer; its stderr goes to the scan. */
  function cli(args: string[]) {
    const res = mailroomCommand([...args, '--json'], env);
    cliLog += res.stderr;
    assert.equal(res.status, 0, res.stderr);
    return JSON.parse(res.stdout);
  }

  const call = (path: string, init: { key?: string; bearer?: string; body?: unknown; method?: string; cookie?: string; csrf?: string; origin?: boolean } = {}) =>
    fetch(`${server!.base}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        ...(init.key ? { 'x-api-key': init.key } : {}),
        ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}),
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.cookie ? { cookie: init.cookie } : {}),
        ...(init.csrf ? { 'x-csrf-token': init.csrf } : {}),
        ...(init.origin ? { origin: server!.base } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  async function ok(res: Response | Promise<Response>, status = 200) {
    const answer = await res;
    const text = await answer.text();
    assert.equal(answer.status, status, text);
    return text ? JSON.parse(text) : undefined;
  }
  /** The session cookie (name=value) a sign-in set, recorded as a secret with its CSRF token. */
  function signedIn(res: Response, body: { data: { csrf_token: string } }, who: string) {
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    secrets.add(`${who}'s session token`, cookie.slice(cookie.indexOf('=') + 1));
    return { cookie, csrf: secrets.add(`${who}'s CSRF token`, body.data.csrf_token) };
  }

  it('drives the main scenarios through a real serve process at LOG_LEVEL=trace', async () => {
    const created = cli(['workspace', 'create', '--name', 'Logscan']);
    const key = secrets.add('the CLI-made API key', created.api_key);
    server = await startServe(env);
    const setupToken = secrets.add('the setup token', await waitFor(() => SETUP_LINE.exec(server!.output())?.[2], 'the setup link in the log'));

    // A domain, verified on the DNS server; its DKIM private key is looked for in the log below.
    const domain = (await ok(call('/v1/domains', { key, body: { domain: DOMAIN } }), 201)).data;
    const dkim = (domain.records as { purpose: string; name: string; value: string }[]).find((r) => r.purpose === 'dkim')!;
    dns.setTxt(dkim.name, [dkim.value]);
    assert.equal((await ok(call(`/v1/domains/${domain.id}/verify`, { key, body: {} }))).data.status, 'verified');

    // A webhook on a real receiver; each send below makes events it is delivered.
    const hook = (await ok(call('/v1/webhooks', { key, body: { url: receiver.url } }), 201)).data;
    const whsec = secrets.add('the webhook secret', hook.secret);
    secrets.add("the webhook secret's body", whsec.replace(/^whsec_/, ''));

    const another = (await ok(call('/v1/api-keys', { key, body: { name: 'second' } }), 201)).data;
    const secondKey = secrets.add('the API key made by /v1/api-keys', another.key);
    const sendBody = { to: ['one@example.com', BOUNCING], from_email: FROM, subject: 'By /v1', text: 'One.' };
    await ok(call('/v1/send', { key: secondKey, body: sendBody }));
    await ok(call('/compat/resend/emails', { bearer: key, body: { from: FROM, to: 'two@example.com', subject: 'By Resend', text: 'Two.' } }));

    secrets.add('the submission AUTH PLAIN', authPlain('mailroom', key));
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: Number(env.SUBMISSION_PORT), secure: false, requireTLS: true, tls: { rejectUnauthorized: false }, auth: { user: 'mailroom', pass: key } });
    try {
      const info = await transport.sendMail({ from: FROM, to: 'three@example.com', subject: 'By SMTP', text: 'Three.' });
      assert.match(info.response, /^250 /);
    } finally {
      transport.close();
    }
    // All three relayed through the SMTP server, which required Mailroom's credentials.
    await waitFor(() => relay.received.length >= 3, 'three messages at the relay');
    assert.ok(relay.authenticated.includes(RELAY.user));
    await waitFor(() => receiver.received.length > 0, 'a webhook delivery');
    assert.ok(receiver.received[0]!.headers['webhook-signature'], 'a signed delivery');
    secrets.add('the rotated webhook secret', (await ok(call(`/v1/webhooks/${hook.id}/rotate-secret`, { key, body: {} }))).data.secret);

    // Refusals: a wrong key on /v1 and on Resend's API, a wrong metrics token; the right one.
    const wrongKey = secrets.add('a wrong API key', `mr_${randomBytes(20).toString('hex')}`);
    assert.equal((await call('/v1/send/logs', { key: wrongKey })).status, 401);
    // Resend answers a key it does not know 403 (an absent one 401), and so does its compatible API.
    assert.equal((await call('/compat/resend/emails', { bearer: wrongKey, body: { from: FROM, to: 'x@example.com', subject: 'x', text: 'x' } })).status, 403);
    const wrongToken = secrets.add('a wrong metrics token', `wrongmetrics${randomBytes(8).toString('hex')}`);
    assert.equal((await call('/metrics', { bearer: wrongToken })).status, 401);
    assert.equal((await call('/metrics', { bearer: METRICS_TOKEN })).status, 200);

    // The dashboard: first-run setup from the link's token, sign-in, CSRF-guarded calls, an invitation link.
    const setupRes = await call('/dashboard/api/setup', { origin: true, body: { token: setupToken, email: ADMIN.email, password: ADMIN.password, workspace_name: 'Dash' } });
    const setup = await setupRes.clone().json();
    assert.equal(setupRes.status, 201, JSON.stringify(setup));
    signedIn(setupRes, setup, 'the setup');
    secrets.add("the setup's API key", setup.data.api_key);
    const signInRes = await call('/dashboard/api/session', { origin: true, body: ADMIN });
    const admin = signedIn(signInRes, await signInRes.json(), 'the admin');
    const workspaceId = (await ok(call('/dashboard/api/session', { cookie: admin.cookie }))).data.workspaces[0].id;
    const dashHook = (await ok(call(`/dashboard/api/workspaces/${workspaceId}/webhooks`, { ...admin, origin: true, body: { url: receiver.url } }), 201)).data;
    secrets.add("the dashboard's webhook secret", dashHook.secret);
    secrets.add("the dashboard's rotated webhook secret", (await ok(call(`/dashboard/api/workspaces/${workspaceId}/webhooks/${dashHook.id}/rotate-secret`, { ...admin, origin: true, body: {} }))).data.secret);
    const invitation = (await ok(call(`/dashboard/api/workspaces/${workspaceId}/invitations`, { ...admin, origin: true, body: { role: 'viewer' } }), 201)).data;
    const invitationToken = secrets.add('the invitation token', new URL(invitation.path, server.base).searchParams.get('token')!);
    assert.equal((await call(invitation.path)).status, 200, 'the link opens the dashboard page');
    await ok(call(`/dashboard/api/invitations/${invitationToken}`));
    const joinedRes = await call(`/dashboard/api/invitations/${invitationToken}/account`, { origin: true, body: INVITEE });
    signedIn(joinedRes, await joinedRes.json(), 'the invitee');
    assert.equal(joinedRes.status, 201);
    assert.equal((await call('/dashboard/api/session', { cookie: 'mailroom_session=not-a-session-token-at-all' })).status, 401);

    // The DKIM private key the domain was given, as the store keeps it sealed.
    const db = await openMigratedDatabase(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    try {
      const row = await db.selectFrom('domains').select('dkim_private_key').where('id', '=', domain.id).executeTakeFirstOrThrow();
      const pem = createSecretBox(loadConfig({ MAILROOM_SECRET_KEY: SECRET_KEY }).secretKey!, DKIM_PRIVATE_KEY).open(row.dkim_private_key);
      pem.split('\n').filter((line) => line.length >= 16 && !line.startsWith('-----')).forEach((line, i) => secrets.add(`DKIM private key (PEM line ${i + 1})`, line));
    } finally {
      await db.destroy();
    }
  });

  it('wrote none of those secrets in any log line, but for the setup link line that shows its token by design', async () => {
    assert.ok(server, 'the scenarios ran');
    assert.equal(await server.stop(), 0);
    const lines = `${server.output()}\n${cliLog}`.split('\n').filter((line) => line.trim() !== '');
    const setupLines = lines.filter((line) => SETUP_LINE.test(line));
    assert.equal(setupLines.length, 1, 'one setup link, on the first start');

    // The scan looked at something: the request lines, at info as each request is answered and at debug as it arrives (at trace any other line below info is scanned too).
    const entries = lines.flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as { msg?: string; req?: { url: string } }] : []));
    assert.ok(entries.some((entry) => entry.msg === 'incoming request' && entry.req?.url === '/v1/send'), 'the arrival lines of /v1/send');
    assert.ok(entries.some((entry) => entry.msg === 'request completed' && entry.req?.url === '/v1/send'), 'the answer lines of /v1/send');
    assert.ok(secrets.all.size >= 20, `${secrets.all.size} secrets looked for`);

    const leaks = lines
      .filter((line) => line !== setupLines[0])
      .map((line) => secrets.findIn(line))
      .filter((found) => found.names.length > 0);
    assert.deepEqual(leaks.map((leak) => `${leak.names.join(', ')}: ${leak.masked}`), [], 'log lines that carry a secret (masked here)');
  });
});
