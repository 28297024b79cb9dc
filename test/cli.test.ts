import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { mailroomCommand as mailroom, startServe } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';

describe('the mailroom command', () => {
  // The store of this test run (SQLite, or a PostgreSQL database of its own), named by environment as for any process.
  let store: FreshStore;
  before(async () => {
    store = await freshStore();
  });
  after(() => store.drop());

  it('lists its commands with --help, through npx as the README says', () => {
    const res = spawnSync('npx', ['mailroom', '--help'], { cwd: join(import.meta.dirname, '..'), encoding: 'utf8' });
    assert.equal(res.status, 0);
    for (const command of ['serve', 'worker', 'migrate', 'workspace create --name NAME [--json]', 'api-key create', 'user create --email EMAIL', 'sandbox show', 'inbound parse FILE... [--json]']) {
      assert.ok(res.stdout.includes(command), `--help mentions ${command}`);
    }
  });

  it('classifies saved e-mails with inbound parse --json, one line per file, and says which file it could not read', () => {
    const fixtures = join(import.meta.dirname, 'fixtures', 'inbound');
    const files = [join(fixtures, 'postfix-bounce-verp.eml'), join(fixtures, 'reply-mailing-list.eml')];
    const res = mailroom(['inbound', 'parse', ...files, '--json'], store.env);
    assert.equal(res.status, 0, res.stderr);
    assert.deepEqual(res.stdout.trim().split('\n').map((line) => JSON.parse(line)), [
      {
        file: files[0],
        results: [{ recipient: 'grace@example.net', kind: 'hard_bounce', status: '5.1.1', diagnostic: '550 5.1.1 <grace@example.net>: Recipient address rejected: User unknown in virtual mailbox table', feedback_type: null }],
      },
      { file: files[1], results: [{ recipient: null, kind: 'none', status: null, diagnostic: null, feedback_type: null }] },
    ]);
    const missing = mailroom(['inbound', 'parse', '/nonexistent.eml', '--json'], store.env);
    assert.equal(missing.status, 1);
    assert.match(JSON.parse(missing.stdout).error, /ENOENT/);
    assert.equal(mailroom(['inbound', 'parse'], store.env).status, 2);
  });

  it('creates a workspace and prints exactly {"workspace_id", "api_key"} with --json', () => {
    const res = mailroom(['workspace', 'create', '--name', 'Acme', '--json'], store.env);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /^\{"workspace_id": "ws_[0-9a-z]{26}", "api_key": "mr_[A-Za-z0-9_-]{43}"\}\n$/);
    assert.deepEqual(Object.keys(JSON.parse(res.stdout)), ['workspace_id', 'api_key']);
  });

  it('migrates, then reports the store up to date', async () => {
    const fresh = await freshStore();
    try {
      // Every numbered migration file, in order.
      const migrations = readdirSync(join(import.meta.dirname, '..', 'src', 'db', 'migrations')).map((f) => f.replace(/\.ts$/, '')).sort();
      assert.ok(migrations.length >= 7);
      assert.equal(mailroom(['migrate'], fresh.env).stdout, `Applied: ${migrations.join(', ')}\n`);
      assert.equal(mailroom(['migrate'], fresh.env).stdout, 'Database is up to date\n');
    } finally {
      await fresh.drop();
    }
  });

  it('creates a further key for an existing workspace, and refuses an unknown one', () => {
    const { workspace_id } = JSON.parse(mailroom(['workspace', 'create', '--name', 'Keys', '--json'], store.env).stdout);
    const res = mailroom(['api-key', 'create', '--workspace', workspace_id, '--name', 'rescue', '--json'], store.env);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(JSON.parse(res.stdout).name, 'rescue');
    const unknown = mailroom(['api-key', 'create', '--workspace', 'ws_nope', '--name', 'x'], store.env);
    assert.equal(unknown.status, 1);
    assert.equal(unknown.stderr, 'mailroom: No workspace ws_nope\n');
  });

  it('creates a sending_access key with --permission, and refuses a domain restriction on a full_access one', () => {
    const { workspace_id } = JSON.parse(mailroom(['workspace', 'create', '--name', 'Scopes', '--json'], store.env).stdout);
    const res = mailroom(['api-key', 'create', '--workspace', workspace_id, '--name', 'shop', '--permission', 'sending_access', '--json'], store.env);
    assert.equal(res.status, 0, res.stderr);
    const key = JSON.parse(res.stdout);
    assert.equal(key.permission, 'sending_access');
    assert.equal(key.domain_id, null);
    const wrong = mailroom(['api-key', 'create', '--workspace', workspace_id, '--name', 'x', '--permission', 'read_only'], store.env);
    assert.equal(wrong.status, 1);
    assert.equal(wrong.stderr, 'mailroom: permission must be one of full_access, sending_access\n');
    const unscoped = mailroom(['api-key', 'create', '--workspace', workspace_id, '--name', 'x', '--domain-id', 'dom_nope'], store.env);
    assert.equal(unscoped.status, 1);
    assert.equal(unscoped.stderr, 'mailroom: domain_id can only restrict a sending_access key\n');
  });

  it('refuses an unknown command and a missing option', () => {
    const unknown = mailroom(['frobnicate'], store.env);
    assert.equal(unknown.status, 2);
    assert.equal(unknown.stderr, "mailroom: unknown command 'frobnicate'; see mailroom --help\n");
    assert.equal(unknown.stdout, '');
    const missing = mailroom(['workspace', 'create'], store.env);
    assert.equal(missing.status, 2);
    assert.equal(missing.stderr, 'mailroom: --name is required\n');
  });

  const badValues: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'Invalid configuration: PORT must be an integer from 0 to 65535 (got "eighty")'],
    [{ PORT: '70000' }, 'Invalid configuration: PORT must be an integer from 0 to 65535 (got "70000")'],
    [{ LOG_LEVEL: 'loud' }, 'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
    [{ MAILROOM_PROVIDER: 'carrier-pigeon' }, 'Invalid configuration: MAILROOM_PROVIDER must be one of sandbox, smtp (got "carrier-pigeon")'],
    [{ MAILROOM_PROVIDER: 'smtp' }, 'Invalid configuration: SMTP_URL is required when MAILROOM_PROVIDER is smtp'],
    [{ WORKER_LEASE_MS: '10' }, 'Invalid configuration: WORKER_LEASE_MS must be an integer of at least 1000 (got "10")'],
    [{ INBOUND_COMPLAINT_ADDRESS: 'complaints' }, 'Invalid configuration: INBOUND_COMPLAINT_ADDRESS must be an e-mail address (got "complaints")'],
    [{ INBOUND_SMTP_PORT: '99999' }, 'Invalid configuration: INBOUND_SMTP_PORT must be an integer from 0 to 65535 (got "99999")'],
    [{ SUBMISSION_PORT: '99999' }, 'Invalid configuration: SUBMISSION_PORT must be an integer from 0 to 65535 (got "99999")'],
    [{ SUBMISSION_TLS_CERT: '/etc/mailroom/cert.pem' }, 'Invalid configuration: SUBMISSION_TLS_KEY is required when SUBMISSION_TLS_CERT is set (give both, or neither for a self-signed certificate)'],
    [{ DELIVERY_MAX_ATTEMPTS: '0' }, 'Invalid configuration: DELIVERY_MAX_ATTEMPTS must be an integer from 1 to 100 (got "0")'],
    [{ RATE_LIMIT_SEND_PER_MIN: '0' }, 'Invalid configuration: RATE_LIMIT_SEND_PER_MIN must be an integer of at least 1 (got "0")'],
    [{ TRUST_PROXY: 'maybe' }, 'Invalid configuration: TRUST_PROXY must be true or false (got "maybe")'],
    [{ DNS_SERVERS: '127.0.0.1:5353,dns.example' }, 'Invalid configuration: DNS_SERVERS must be a comma-separated list of ip or ip:port entries (got "dns.example")'],
    [{ DATABASE_POOL_SIZE: '0' }, 'Invalid configuration: DATABASE_POOL_SIZE must be an integer from 1 to 1000 (got "0")'],
    [{ DATABASE_STATEMENT_TIMEOUT_MS: '-1' }, 'Invalid configuration: DATABASE_STATEMENT_TIMEOUT_MS must be an integer of at least 0 (got "-1")'],
    [{ WEBHOOK_ALLOW_PRIVATE: 'maybe' }, 'Invalid configuration: WEBHOOK_ALLOW_PRIVATE must be true or false (got "maybe")'],
    // A key is a secret: named, never echoed.
    [{ MAILROOM_SECRET_KEY: 'hunter2hunter2' }, 'Invalid configuration: MAILROOM_SECRET_KEY must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)'],
    // URLs may carry passwords: the message names the variable, never the value.
    [{ DATABASE_URL: 'mysql://root:hunter2@db/mail' }, 'Invalid configuration: DATABASE_URL must be a postgres:// URL'],
    [{ REDIS_URL: 'memcached://:hunter2@cache' }, 'Invalid configuration: REDIS_URL must be a redis:// URL'],
    [{ MAILROOM_PROVIDER: 'smtp', SMTP_URL: 'http://user:hunter2@relay' }, 'Invalid configuration: SMTP_URL must be a smtp:// or smtps:// URL'],
  ];
  for (const [env, message] of badValues) {
    const name = Object.keys(env)[0]!;
    it(`stops start-up on a bad ${name}, naming it`, () => {
      assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && error.message === message);
      const res = mailroom(['serve'], { ...store.env, ...env });
      assert.equal(res.status, 1);
      assert.equal(res.stderr, `mailroom: ${message}\n`);
    });
  }

  it('stops start-up when PostgreSQL or Redis cannot be reached, saying which, without the password', () => {
    const postgres = mailroom(['serve'], { ...store.env, DATABASE_URL: 'postgres://mailroom:hunter2@127.0.0.1:1/mailroom' });
    assert.equal(postgres.status, 1);
    assert.match(postgres.stderr, /^mailroom: Cannot reach PostgreSQL at DATABASE_URL: .*ECONNREFUSED/);
    const redis = mailroom(['serve'], { ...store.env, REDIS_URL: 'redis://:hunter2@127.0.0.1:1' });
    assert.equal(redis.status, 1);
    assert.match(redis.stderr, /^mailroom: Cannot reach Redis at REDIS_URL: .*ECONNREFUSED/);
    for (const output of [postgres.stdout, postgres.stderr, redis.stdout, redis.stderr]) assert.ok(!output.includes('hunter2'));
  });

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
    const server = await startServe(store.env);
    const health = await fetch(`${server.base}/v1/health/check`);
    assert.deepEqual(await health.json(), { status: 'ok' });
    assert.equal(await server.stop(), 0);
  });
});
