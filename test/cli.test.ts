import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'mailroom.js');

function mailroom(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
}

describe('the mailroom command', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mailroom-cli-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('lists its commands with --help, through npx as the README says', () => {
    const res = spawnSync('npx', ['mailroom', '--help'], { cwd: join(import.meta.dirname, '..'), encoding: 'utf8' });
    assert.equal(res.status, 0);
    for (const command of ['serve', 'migrate', 'workspace create --name NAME [--json]', 'api-key create']) {
      assert.ok(res.stdout.includes(command), `--help mentions ${command}`);
    }
  });

  it('creates a workspace and prints exactly {"workspace_id", "api_key"} with --json', () => {
    const res = mailroom(['workspace', 'create', '--name', 'Acme', '--json'], { MAILROOM_DATA_DIR: dataDir });
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /^\{"workspace_id": "ws_[0-9a-z]{26}", "api_key": "mr_[A-Za-z0-9_-]{43}"\}\n$/);
    assert.deepEqual(Object.keys(JSON.parse(res.stdout)), ['workspace_id', 'api_key']);
  });

  it('migrates, then reports the store up to date', () => {
    const fresh = mkdtempSync(join(tmpdir(), 'mailroom-migrate-'));
    try {
      assert.equal(mailroom(['migrate'], { MAILROOM_DATA_DIR: fresh }).stdout, 'Applied: 0001-initial\n');
      assert.equal(mailroom(['migrate'], { MAILROOM_DATA_DIR: fresh }).stdout, 'Database is up to date\n');
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('creates a further key for an existing workspace, and refuses an unknown one', () => {
    const { workspace_id } = JSON.parse(mailroom(['workspace', 'create', '--name', 'Keys', '--json'], { MAILROOM_DATA_DIR: dataDir }).stdout);
    const res = mailroom(['api-key', 'create', '--workspace', workspace_id, '--name', 'rescue', '--json'], { MAILROOM_DATA_DIR: dataDir });
    assert.equal(res.status, 0, res.stderr);
    assert.equal(JSON.parse(res.stdout).name, 'rescue');
    const unknown = mailroom(['api-key', 'create', '--workspace', 'ws_nope', '--name', 'x'], { MAILROOM_DATA_DIR: dataDir });
    assert.equal(unknown.status, 1);
    assert.equal(unknown.stderr, 'mailroom: No workspace ws_nope\n');
  });

  it('refuses an unknown command and a missing option', () => {
    const unknown = mailroom(['frobnicate'], { MAILROOM_DATA_DIR: dataDir });
    assert.equal(unknown.status, 2);
    assert.ok(unknown.stderr.startsWith('Unknown command: frobnicate'));
    const missing = mailroom(['workspace', 'create'], { MAILROOM_DATA_DIR: dataDir });
    assert.equal(missing.status, 2);
    assert.equal(missing.stderr, 'mailroom: --name is required\n');
  });

  const badValues: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'Invalid configuration: PORT must be an integer from 0 to 65535 (got "eighty")'],
    [{ PORT: '70000' }, 'Invalid configuration: PORT must be an integer from 0 to 65535 (got "70000")'],
    [{ LOG_LEVEL: 'loud' }, 'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
    [{ MAILROOM_PROVIDER: 'carrier-pigeon' }, 'Invalid configuration: MAILROOM_PROVIDER must be one of sandbox (got "carrier-pigeon")'],
    [{ RATE_LIMIT_SEND_PER_MIN: '0' }, 'Invalid configuration: RATE_LIMIT_SEND_PER_MIN must be an integer of at least 1 (got "0")'],
    [{ TRUST_PROXY: 'maybe' }, 'Invalid configuration: TRUST_PROXY must be true or false (got "maybe")'],
    [{ DNS_SERVERS: '127.0.0.1:5353,dns.example' }, 'Invalid configuration: DNS_SERVERS must be a comma-separated list of ip or ip:port entries (got "dns.example")'],
  ];
  for (const [env, message] of badValues) {
    const name = Object.keys(env)[0]!;
    it(`stops start-up on a bad ${name}, naming it`, () => {
      assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && error.message === message);
      const res = mailroom(['serve'], { MAILROOM_DATA_DIR: dataDir, ...env });
      assert.equal(res.status, 1);
      assert.equal(res.stderr, `mailroom: ${message}\n`);
    });
  }

  it('reads DNS servers with ports and IPv6, and defaults every other setting', () => {
    const config = loadConfig({ DNS_SERVERS: '127.0.0.1:5353, ::1 ,[::1]:53' });
    assert.deepEqual(config.dnsServers, ['127.0.0.1:5353', '::1', '[::1]:53']);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 3000);
    assert.deepEqual(config.rateLimits, { sendPerMinute: 30, otherPerMinute: 60 });
    assert.equal(config.provider, 'sandbox');
    assert.ok(config.dataDir.endsWith('/data'));
  });

  it('serves until SIGTERM, then exits cleanly', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, MAILROOM_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' } });
    const port = await new Promise<number>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${output}`)));
    });
    const health = await fetch(`http://127.0.0.1:${port}/v1/health/check`);
    assert.deepEqual(await health.json(), { status: 'ok' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });
});
