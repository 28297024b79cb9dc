/**
 * The examples of the guides under docs/ run as written against one fresh
 * server in sandbox mode: only the ports differ (3000 and 587 may be taken, or
 * need root, on a test machine), a placeholder id (`dom_…`) is the id the
 * example before it answered, and an upstream's host is a server of the test's
 * on loopback (so the server takes loopback upstreams, UPSTREAM_ALLOW_PRIVATE). Each test has a workspace of its own, its key in
 * MAILROOM_API_KEY as the README's first send has the reader set it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { docBlock, docBlocks, onPort, ROOT, runShell } from './helpers/doc-blocks.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { freePort } from './helpers/free-port.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { startSesEmulator, type SesEmulator } from './helpers/ses-emulator.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';

/** curl prints bodies without a newline: the JSON envelopes of a block's output, back to back, one by one. */
const envelopes = (output: string) => output.trim().split(/(?<=\})\s*(?=\{"success")/).map((body) => JSON.parse(body));

describe('the guides\' examples, as written', () => {
  let store: FreshStore;
  let dns: TestDnsServer;
  let app: Awaited<ReturnType<typeof startServer>>;
  let port: number;
  let submissionPort: number;
  let scratch: string;
  /** A workspace of the test's own: the environment its blocks run with. */
  const workspace = async () => ({ MAILROOM_API_KEY: (await app.services.workspaces.create('Acme')).api_key });
  const api = async (path: string, env: { MAILROOM_API_KEY: string }) =>
    (await (await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-api-key': env.MAILROOM_API_KEY } })).json()) as { data: Record<string, unknown> };

  before(async () => {
    store = await freshStore();
    dns = await startDnsServer();
    submissionPort = await freePort();
    scratch = await mkdtemp(join(tmpdir(), 'mailroom-guides-'));
    app = await startServer(
      loadConfig({ ...store.env, LOG_LEVEL: 'silent', PORT: '0', INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: String(submissionPort), DNS_SERVERS: dns.address, UPSTREAM_ALLOW_PRIVATE: 'true' }),
    );
    port = (app.server.address() as { port: number }).port;
  });
  after(async () => {
    await app?.close();
    await dns?.close();
    await store?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('docs/resend-compatibility.md: curl with a Bearer key, then the resend SDK', async () => {
    const stdout = await runShell(onPort(docBlock('docs/resend-compatibility.md'), port), { env: await workspace() });
    const [, curlId, lastEvent] = /^\{"id":"(msg_[^"]+)"\}\s*(\S+)\s*$/.exec(stdout) ?? [];
    assert.ok(curlId, stdout);
    assert.ok(['delivered', 'queued'].includes(lastEvent!), stdout);
  });

  it('docs/smtp.md: the submission with curl, STARTTLS and AUTH', async () => {
    const env = await workspace();
    const script = onPort(docBlock('docs/smtp.md', '## Submission with curl'), port).replaceAll('smtp://127.0.0.1:587', `smtp://127.0.0.1:${submissionPort}`);
    // It writes hello.eml where it runs.
    const output = await runShell(script, { env, cwd: scratch });
    const match = /^< 250 2\.0\.0 OK: queued as (msg_\S+)\r?\n(\{.*\})$/s.exec(output.trim());
    assert.ok(match, output);
    const logs = JSON.parse(match[2]!);
    assert.deepEqual(
      logs.data.map((e: Record<string, string>) => [e.message_id, e.to, e.from_email, e.subject, e.status]),
      [[match[1], 'archive@example.com', 'hello@sandbox.mailroom.test', 'Hello over SMTP', 'sent']],
    );
  });

  it('docs/smtp.md: the Nodemailer example, its attachment and all', async () => {
    const env = await workspace();
    const code = docBlock('docs/smtp.md', '## Sending with Nodemailer', 'js');
    assert.match(code, /port: 587,/);
    // From the checkout, where `nodemailer` resolves, as the guide says.
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code.replace('port: 587,', `port: ${submissionPort},`)], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const messageId = /^250 2\.0\.0 OK: queued as (msg_[0-9a-z]{26})$/.exec(stdout.trim())?.[1];
    assert.ok(messageId, stdout);
    const message = (await api(`/v1/messages/${messageId}`, env)).data;
    assert.equal(message.subject, 'Hello from Nodemailer');
    assert.equal(message.from_email, 'hello@sandbox.mailroom.test');
    assert.deepEqual((message.recipients as Array<{ to: string }>).map((r) => r.to), ['ada@example.com']);
    assert.deepEqual(message.attachments, [{ filename: 'notes.txt', content_type: 'text/plain', content_id: null, size: 15 }]);
  });

  it('docs/sending.md: the attachments, the batch and the scheduled send with its cancel', async () => {
    const env = await workspace();
    const [attached] = envelopes(await runShell(onPort(docBlock('docs/sending.md', '## Attachments'), port), { env }));
    assert.equal(attached.data.status, 'sent');
    const detail = (await api(`/v1/messages/${attached.data.message_id}`, env)).data;
    assert.deepEqual((detail.attachments as Array<{ filename: string }>).map((a) => a.filename), ['invoice.txt', 'logo.gif']);

    const [batch] = envelopes(await runShell(onPort(docBlock('docs/sending.md', '## Batch sends'), port), { env }));
    assert.deepEqual(batch.data.map((r: { status: string }) => r.status), ['sent', 'sent']);

    const [scheduled, canceled] = envelopes(await runShell(onPort(docBlock('docs/sending.md', '## Scheduled sends'), port), { env }));
    const inAnHour = Date.parse(scheduled.data.scheduled_at) - Date.now();
    assert.ok(inAnHour > 58 * 60_000 && inAnHour <= 60 * 60_000, scheduled.data.scheduled_at);
    assert.equal(canceled.data.message_id, scheduled.data.id);
    assert.equal(canceled.data.canceled_recipients, 1);
  });

  it('docs/domains.md: adds a domain, then verifies it once its DKIM record is published', async () => {
    const env = await workspace();
    const block = docBlock('docs/domains.md', '## Records and verification');
    assert.equal(docBlocks('README.md', '## A first send')[1], block, 'the README shows the same block');
    const [add, verify] = block.split('# publish the returned records, then:\n');
    const [added] = envelopes(await runShell(onPort(add!, port), { env }));
    assert.equal(added.data.status, 'pending');
    const dkim = added.data.records.find((r: { purpose: string }) => r.purpose === 'dkim');
    dns.setTxt(dkim.name, [dkim.value]);
    const [verified] = envelopes(await runShell(onPort(verify!, port).replace('dom_…', added.data.id), { env }));
    assert.equal(verified.data.status, 'verified');
  });

  it('docs/upstreams.md: a primary and a backup, each tested, then the domain routed through both', async () => {
    const env = await workspace();
    const block = docBlock('docs/upstreams.md', '## A primary and a backup');
    // The guide's SES keys and relay credentials, known to the test's own SES emulator and relay.
    const sesKeys = /"access_key_id": "(\w+)", "secret_access_key": "([^"]+)"/.exec(block);
    const relayUrl = /"url": "(smtps:\/\/(\w+):([^@]+)@([^"]+))"/.exec(block);
    assert.ok(sesKeys && relayUrl, block);
    let ses: SesEmulator | undefined;
    let relay: SmtpSink | undefined;
    try {
      [ses, relay] = await Promise.all([startSesEmulator({ keys: { [sesKeys[1]!]: sesKeys[2]! } }), startSmtpSink({ auth: { user: relayUrl[2]!, pass: relayUrl[3]! } })]);
      const domain = (await (await fetch(`http://127.0.0.1:${port}/v1/domains`, {
        method: 'POST',
        headers: { 'x-api-key': env.MAILROOM_API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ domain: 'routed.example' }),
      })).json()) as { data: { id: string } };
      const script = onPort(block, port)
        .replace('"region": "eu-west-1",', `"region": "eu-west-1", "endpoint": "${ses.url}",`)
        // The test's relay speaks plain SMTP (no certificate to offer).
        .replace(relayUrl[1]!, `smtp://${relayUrl[2]}:${relayUrl[3]}@127.0.0.1:${relay.port}`)
        .replace('dom_…', domain.data.id);
      const [primaryTest, backupTest, routed] = envelopes(await runShell(script, { env }));
      assert.deepEqual([primaryTest.data.ok, backupTest.data.ok], [true, true], JSON.stringify([primaryTest, backupTest]));
      const upstreams = (await api('/v1/upstreams', env)).data as unknown as { id: string; name: string; type: string }[];
      assert.deepEqual(upstreams.map((u) => [u.name, u.type]), [['ses eu-west-1', 'ses'], ['backup relay', 'smtp']]);
      assert.deepEqual(routed.data.upstream_ids, upstreams.map((u) => u.id), 'the primary first');
      assert.deepEqual(relay.authenticated, [relayUrl[2]], 'the backup was authenticated against');
    } finally {
      await Promise.all([ses?.close(), relay?.close()]);
    }
  });

  it('docs/api-keys.md: a sending key restricted to one domain', async () => {
    const env = await workspace();
    const domain = (await (await fetch(`http://127.0.0.1:${port}/v1/domains`, {
      method: 'POST',
      headers: { 'x-api-key': env.MAILROOM_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'shop.example' }),
    })).json()) as { data: { id: string } };
    const [key] = envelopes(await runShell(onPort(docBlock('docs/api-keys.md', '## Scopes'), port).replace('dom_01…', domain.data.id), { env }));
    assert.deepEqual([key.data.name, key.data.permission, key.data.domain_id], ['shop', 'sending_access', domain.data.id]);
    assert.match(key.data.key, /^mr_/);
  });

  it('docs/suppressions.md and docs/logs-and-stats.md: adds and removes an address, and searches the log', async () => {
    const env = await workspace();
    const [added, removed] = envelopes(await runShell(onPort(docBlock('docs/suppressions.md'), port), { env }));
    assert.deepEqual([added.data.email, added.data.reason, removed.data.deleted], ['ada@example.com', 'manual', true]);
    const searches = envelopes(await runShell(onPort(docBlock('docs/logs-and-stats.md', '## Searching the log'), port), { env }));
    assert.deepEqual(searches.map((s) => [s.success, Array.isArray(s.data)]), [[true, true], [true, true]], 'both searches are taken as written');
  });

  it('docs/api.md: lists the OpenAPI document\'s operations, and writes the same document without a server', async () => {
    const target = join(scratch, 'openapi.json');
    const block = onPort(docBlock('docs/api.md', '## The OpenAPI document and /docs'), port).replace('openapi openapi.json', `openapi ${target}`);
    const listed = (await runShell(block)).trim().split('\n');
    assert.deepEqual(listed.slice(0, 3), ['getOpenApiDocument GET /v1/openapi.json', 'checkHealth GET /v1/health/check', 'sendEmail POST /v1/send']);
    const served = await (await fetch(`http://127.0.0.1:${port}/v1/openapi.json`)).json();
    assert.deepEqual(JSON.parse(readFileSync(target, 'utf8')), served);
  });

  it('docs/inbound.md: inbound parse prints what the guide shows', async () => {
    const block = docBlock('docs/inbound.md', '## Reading a report by hand');
    const [command, shown] = block.trim().split('\n');
    assert.equal(shown, `# ${(await runShell(command!)).trim()}`);
  });

  it('docs/cli.md: another workspace, the list and the settings', async () => {
    const output = (await runShell(docBlock('docs/cli.md', '## Another workspace'), { env: store.env })).trim().split('\n');
    assert.deepEqual(Object.keys(JSON.parse(output[0]!)), ['workspace_id', 'api_key']);
    assert.ok(output.some((line) => /\bAcme\b/.test(line)), output.join('\n'));
    assert.deepEqual(output.filter((line) => /^(PORT|MAILROOM_DATA_DIR)=/.test(line)).map((line) => line.split('=')[0]), ['PORT', 'MAILROOM_DATA_DIR']);
  });
});
