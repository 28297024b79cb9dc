import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { isPublicHostName } from '../src/lib/domain-name.js';
import { BIN, mailroomCommand as mailroom, startServe, storeLine } from './helpers/serve-process.js';
import { freshStore, migratedStore, type FreshStore } from './helpers/test-store.js';

describe('the mailroom command', () => {
  // The store of this test run (SQLite, or a PostgreSQL database of its own), named by environment as for any process.
  let store: FreshStore;
  /** What a command on that store writes on stderr before its own words. */
  let using: string;
  before(async () => {
    store = await migratedStore();
    using = storeLine(store.env);
  });
  after(() => store.drop());

  it('lists its commands with --help, run from the checkout as the README says, and builds nothing', () => {
    const root = join(import.meta.dirname, '..');
    const bundle = join(root, 'dist', 'bundle', 'cli.js');
    const built = statSync(bundle).mtimeMs;
    const res = spawnSync(process.execPath, ['bin/mailroom.js', '--help'], { cwd: root, encoding: 'utf8' });
    assert.equal(res.status, 0);
    assert.equal(statSync(bundle).mtimeMs, built, 'the bundle it runs was not rebuilt');
    assert.match(readFileSync(join(root, 'README.md'), 'utf8'), /`node bin\/mailroom\.js --help` lists every/);
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
        results: [{ recipient: 'grace@example.net', kind: 'hard_bounce', status: '5.1.1', diagnostic: '550 5.1.1 <grace@example.net>: Recipient address rejected: User unknown in virtual mailbox table', feedback_type: null, reason: 'userunknown' }],
      },
      { file: files[1], results: [{ recipient: null, kind: 'none', status: null, diagnostic: null, feedback_type: null, reason: null }] },
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
      assert.deepEqual(JSON.parse(mailroom(['migrate', '--json'], fresh.env).stdout), { applied: [] });
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
    assert.equal(unknown.stderr, `${using}mailroom: No workspace ws_nope\n`);
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
    assert.equal(wrong.stderr, `${using}mailroom: permission must be one of full_access, sending_access\n`);
    const unscoped = mailroom(['api-key', 'create', '--workspace', workspace_id, '--name', 'x', '--domain-id', 'dom_nope'], store.env);
    assert.equal(unscoped.status, 1);
    assert.equal(unscoped.stderr, `${using}mailroom: domain_id can only restrict a sending_access key\n`);
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
    // An empty number is a mistake (PORT=$PORT with nothing in it), not the default.
    [{ PORT: '' }, 'Invalid configuration: PORT must be an integer from 0 to 65535 (got "")'],
    [{ PORT: '70000' }, 'Invalid configuration: PORT must be an integer from 0 to 65535 (got "70000")'],
    [{ LOG_LEVEL: 'loud' }, 'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
    [{ MAILROOM_PROVIDER: 'carrier-pigeon' }, 'Invalid configuration: MAILROOM_PROVIDER must be one of sandbox, smtp, ses, or a comma-separated list of smtp and ses in the order to try them (ses,smtp) (got "carrier-pigeon")'],
    [{ MAILROOM_PROVIDER: 'smtp' }, 'Invalid configuration: SMTP_URL is required when MAILROOM_PROVIDER is smtp'],
    // Past a day the socket timers it sets would overflow and cut every connection at once.
    [{ HTTP_REQUEST_TIMEOUT_MS: '2147483647' }, 'Invalid configuration: HTTP_REQUEST_TIMEOUT_MS must be an integer from 10000 to 86400000 (got "2147483647")'],
    [{ WORKER_LEASE_MS: '10' }, 'Invalid configuration: WORKER_LEASE_MS must be an integer of at least 1000 (got "10")'],
    [{ INBOUND_COMPLAINT_ADDRESS: 'complaints' }, 'Invalid configuration: INBOUND_COMPLAINT_ADDRESS must be an e-mail address (got "complaints")'],
    [{ INBOUND_SMTP_PORT: '99999' }, 'Invalid configuration: INBOUND_SMTP_PORT must be an integer from 0 to 65535 (got "99999")'],
    [{ SUBMISSION_PORT: '99999' }, 'Invalid configuration: SUBMISSION_PORT must be an integer from 0 to 65535 (got "99999")'],
    [{ SUBMISSION_TLS_CERT: '/etc/mailroom/cert.pem' }, 'Invalid configuration: SUBMISSION_TLS_KEY is required when SUBMISSION_TLS_CERT is set (give both, or neither for a self-signed certificate)'],
    [{ DELIVERY_MAX_ATTEMPTS: '0' }, 'Invalid configuration: DELIVERY_MAX_ATTEMPTS must be an integer from 1 to 100 (got "0")'],
    [{ RATE_LIMIT_RECIPIENTS_PER_MIN: '1.5' }, 'Invalid configuration: RATE_LIMIT_RECIPIENTS_PER_MIN must be an integer of at least 1 (got "1.5")'],
    [{ RATE_LIMIT_SEND_PER_MIN: '0' }, 'Invalid configuration: RATE_LIMIT_SEND_PER_MIN must be an integer of at least 1 (got "0")'],
    [{ TRUST_PROXY: 'maybe' }, 'Invalid configuration: TRUST_PROXY must be false, the number of proxies in front of Mailroom (1), or a comma-separated list of their addresses or CIDR ranges (127.0.0.1,10.0.0.0/8) (got "maybe")'],
    [{ TRUST_PROXY: '127.0.0.1,10.0.0.0/33' }, 'Invalid configuration: TRUST_PROXY must be false, the number of proxies in front of Mailroom (1), or a comma-separated list of their addresses or CIDR ranges (127.0.0.1,10.0.0.0/8) (got "127.0.0.1,10.0.0.0/33")'],
    // Every X-Forwarded-For entry on trust: the client would choose its own address.
    [
      { TRUST_PROXY: 'true' },
      'Invalid configuration: TRUST_PROXY=true would take every X-Forwarded-For entry on trust, so any client could choose its own address (and with it its rate limits and sign-in lock-out): name the proxies instead, TRUST_PROXY=127.0.0.1 for nginx or Caddy on this machine (a comma-separated list of addresses and CIDR ranges), or give their number, TRUST_PROXY=1',
    ],
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
    assert.ok(redis.stderr.startsWith(`${using}mailroom: Cannot reach Redis at REDIS_URL: `), redis.stderr);
    assert.match(redis.stderr, /ECONNREFUSED/);
    for (const output of [postgres.stdout, postgres.stderr, redis.stdout, redis.stderr]) assert.ok(!output.includes('hunter2'));
  });

  it('reads DNS servers with ports and IPv6, and defaults every other setting', () => {
    const config = loadConfig({ DNS_SERVERS: '127.0.0.1:5353, ::1 ,[::1]:53' });
    assert.deepEqual(config.dnsServers, ['127.0.0.1:5353', '::1', '[::1]:53']);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 3000);
    assert.deepEqual(config.rateLimits, { sendPerMinute: 30, otherPerMinute: 60, recipientsPerMinute: 3000, trackingPerMinute: 6000 });
    assert.equal(config.provider, 'sandbox');
    assert.ok(config.dataDir.endsWith('/data'));
  });

  it('prints its version with --version, -V and -v, from package.json', () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'));
    for (const flag of ['--version', '-V', '-v']) {
      const res = mailroom([flag], {});
      assert.deepEqual([res.status, res.stdout, res.stderr], [0, `${version}\n`, '']);
    }
  });

  it('answers --help for every command with its usage', async () => {
    const commands = ['serve', 'worker', 'migrate', 'workspace', 'workspace create', 'workspace list', 'api-key create', 'api-key list', 'api-key delete',
      'user create', 'user list', 'user reset-password', 'sandbox show', 'inbound parse', 'config'];
    const run = promisify(execFile);
    // Side by side: each is a process start and nothing more.
    const helps = await Promise.all(commands.map((command) => run(process.execPath, [BIN, ...command.split(' '), '--help'], { encoding: 'utf8' })));
    helps.forEach(({ stdout }, i) => assert.ok(stdout.startsWith(`Usage: mailroom ${commands[i]} `), `${commands[i]} --help:\n${stdout}`));
    assert.match(helps[commands.indexOf('api-key delete')]!.stdout, /Usage: mailroom api-key delete --workspace ID KEY_ID \[--json\]/);
    // The top level lists every command in full.
    const top = mailroom(['--help'], {}).stdout;
    for (const command of commands.filter((c) => c !== 'workspace')) assert.ok(top.includes(`\n  ${command}`), `--help lists ${command}`);
  });

  it('refuses an unknown option in one line, with status 2, naming where help is', () => {
    const res = mailroom(['workspace', 'list', '--jsn'], store.env);
    assert.equal(res.status, 2);
    assert.equal(res.stderr, "mailroom: unknown option '--jsn' (Did you mean --json?); see mailroom workspace list --help\n");
    const extra = mailroom(['sandbox', 'show', 'msg_a', 'msg_b'], store.env);
    assert.equal(extra.status, 2);
    assert.equal(extra.stderr.split('\n').length, 2, extra.stderr);
  });

  it('lists workspaces, oldest first, as JSON with --json', () => {
    const { workspace_id } = JSON.parse(mailroom(['workspace', 'create', '--name', 'Listed', '--json'], store.env).stdout);
    const res = mailroom(['workspace', 'list', '--json'], store.env);
    assert.equal(res.status, 0, res.stderr);
    const listed = JSON.parse(res.stdout) as Array<{ id: string; name: string; created_at: string }>;
    assert.deepEqual(listed.find((w) => w.id === workspace_id), { id: workspace_id, name: 'Listed', created_at: listed.find((w) => w.id === workspace_id)!.created_at });
    assert.deepEqual(listed.map((w) => w.id), listed.map((w) => w.id).sort());
    assert.match(mailroom(['workspace', 'list'], store.env).stdout, new RegExp(`^ID +NAME +CREATED\n[\\s\\S]*${workspace_id}  +Listed  +\\d{4}-`));
  });

  it('lists and deletes API keys, never showing a key in a list', () => {
    const { workspace_id } = JSON.parse(mailroom(['workspace', 'create', '--name', 'Keyring', '--json'], store.env).stdout);
    const created = JSON.parse(mailroom(['api-key', 'create', '--workspace', workspace_id, '--name', 'ci', '--json'], store.env).stdout);
    const list = () => JSON.parse(mailroom(['api-key', 'list', '--workspace', workspace_id, '--json'], store.env).stdout) as Array<Record<string, unknown>>;
    const before = list();
    assert.deepEqual(before.map((k) => k.name), ['ci', 'default']);
    assert.deepEqual(Object.keys(before[0]!).sort(), ['created_at', 'domain_id', 'id', 'last_used_at', 'masked_key', 'name', 'permission']);
    assert.ok(!JSON.stringify(before).includes(created.key));
    const deleted = mailroom(['api-key', 'delete', '--workspace', workspace_id, created.id, '--json'], store.env);
    assert.equal(deleted.status, 0, deleted.stderr);
    assert.deepEqual(JSON.parse(deleted.stdout), { id: created.id, deleted: true });
    assert.deepEqual(list().map((k) => k.name), ['default']);
    const again = mailroom(['api-key', 'delete', '--workspace', workspace_id, created.id], store.env);
    assert.deepEqual([again.status, again.stderr], [1, `${using}mailroom: API key not found\n`]);
    const unknown = mailroom(['api-key', 'list', '--workspace', 'ws_nope'], store.env);
    assert.deepEqual([unknown.status, unknown.stderr], [1, `${using}mailroom: No workspace ws_nope\n`]);
  });

  it('prints the effective settings with config, secrets masked, and where each came from', () => {
    const secretKey = Buffer.alloc(32, 7).toString('base64');
    const env = {
      ...store.env,
      DATABASE_URL: 'postgres://mailroom:hunter2@db.example:5432/mailroom',
      REDIS_URL: 'redis://:redis-pass@cache.example:6379',
      MAILROOM_PROVIDER: 'smtp',
      SMTP_URL: 'smtps://relay-user:smtp-pass@relay.example:465',
      MAILROOM_SECRET_KEY: secretKey,
      RATE_LIMIT_SEND_PER_MIN: '99',
    };
    const res = mailroom(['config', '--json'], env);
    assert.equal(res.status, 0, res.stderr);
    const settings = JSON.parse(res.stdout);
    assert.deepEqual(settings.DATABASE_URL, { value: 'postgres://mailroom:********@db.example:5432/mailroom', source: 'environment' });
    assert.deepEqual(settings.REDIS_URL, { value: 'redis://:********@cache.example:6379', source: 'environment' });
    assert.deepEqual(settings.SMTP_URL, { value: 'smtps://relay-user:********@relay.example:465', source: 'environment' });
    assert.deepEqual(settings.MAILROOM_SECRET_KEY, { value: '********', source: 'environment' });
    assert.deepEqual(settings.RATE_LIMIT_SEND_PER_MIN, { value: '99', source: 'environment' });
    assert.deepEqual(settings.WORKER_LEASE_MS, { value: '60000', source: 'default' });
    assert.deepEqual(settings.MAILROOM_DATA_DIR, { value: store.dataDir, source: 'environment' });
    const text = mailroom(['config'], env).stdout;
    assert.match(text, /^RATE_LIMIT_SEND_PER_MIN=99 +# environment$/m);
    for (const output of [res.stdout, text]) {
      for (const secret of ['hunter2', 'redis-pass', 'smtp-pass', secretKey]) assert.ok(!output.includes(secret), `config never shows ${secret}`);
    }
    // A bad value stops it as it stops start-up.
    assert.deepEqual(mailroom(['config'], { ...store.env, PORT: 'eighty' }).status, 1);
  });

  it('reads .env from the working directory, the real environment winning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-env-'));
    try {
      writeFileSync(join(dir, '.env'), 'RATE_LIMIT_OTHER_PER_MIN=77   # from the file\nRATE_LIMIT_SEND_PER_MIN=11\nSMTP_URL="smtp://u:file-pass@relay.example:587"\n');
      const res = mailroom(['config', '--json'], { ...store.env, RATE_LIMIT_SEND_PER_MIN: '22' }, { cwd: dir });
      assert.equal(res.status, 0, res.stderr);
      const settings = JSON.parse(res.stdout);
      assert.deepEqual(settings.RATE_LIMIT_OTHER_PER_MIN, { value: '77', source: '.env' });
      assert.deepEqual(settings.RATE_LIMIT_SEND_PER_MIN, { value: '22', source: 'environment' });
      assert.deepEqual(settings.SMTP_URL, { value: 'smtp://u:********@relay.example:587', source: '.env' });
      // And a command that starts Mailroom runs with it: a bad value in .env stops it, naming the variable.
      writeFileSync(join(dir, '.env'), 'PORT=eighty\n');
      const bad = mailroom(['serve'], store.env, { cwd: dir });
      assert.deepEqual([bad.status, bad.stderr], [1, 'mailroom: Invalid configuration: PORT must be an integer from 0 to 65535 (got "eighty")\n']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops start-up in one line naming PORT, or INBOUND_SMTP_PORT, when the port is taken', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const http = mailroom(['serve'], { ...store.env, PORT: String(port), INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0' });
      assert.equal(http.status, 1);
      assert.equal(http.stderr, `${using}mailroom: Cannot listen on PORT ${port} at 127.0.0.1 (EADDRINUSE): another process is listening there; stop it, or set PORT to a free port\n`);
      const inbound = mailroom(['serve'], { ...store.env, PORT: '0', INBOUND_SMTP_PORT: String(port), SUBMISSION_PORT: '0' });
      assert.equal(inbound.status, 1);
      assert.equal(
        inbound.stderr,
        `${using}mailroom: Cannot listen on INBOUND_SMTP_PORT ${port} at 127.0.0.1 (EADDRINUSE): another process is listening there; stop it, or set INBOUND_SMTP_PORT to a free port, or 0 for none\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  // Root may write anywhere and listen on any port: the refusals are seen as a service user without those powers sees them.
  const asUser = { unprivileged: true };

  it('stops start-up in one line naming MAILROOM_DATA_DIR when the directory cannot be written', () => {
    const parent = mkdtempSync(join(tmpdir(), 'mailroom-readonly-'));
    chmodSync(parent, 0o555);
    try {
      // The embedded store's directory, whichever store this run tests.
      const res = mailroom(['migrate'], { MAILROOM_DATA_DIR: join(parent, 'data') }, asUser);
      assert.equal(res.status, 1);
      assert.equal(res.stderr, `${storeLine({ MAILROOM_DATA_DIR: join(parent, 'data') }, 'creating')}mailroom: Cannot use MAILROOM_DATA_DIR ${join(parent, 'data')}: permission denied (it must be a directory this user can write, or one it can create)\n`);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('stops start-up in one line naming PORT when the port needs privileges', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-port-'));
    try {
      const res = mailroom(['serve'], { MAILROOM_DATA_DIR: dataDir, PORT: '80', INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0' }, asUser);
      assert.equal(res.status, 1);
      assert.equal(
        res.stderr,
        `${storeLine({ MAILROOM_DATA_DIR: dataDir }, 'creating')}mailroom: Cannot listen on PORT 80 at 127.0.0.1 (EACCES): permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE); set PORT to 1024 or above\n`,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('logs the data directory as an absolute path at start, and warns of a MAILROOM_HOSTNAME that is not fully qualified', async () => {
    const server = await startServe({ ...store.env, MAILROOM_DATA_DIR: relative(process.cwd(), store.dataDir), MAILROOM_HOSTNAME: 'mailbox' });
    try {
      const lines = server.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
      assert.ok(lines.some((line) => line.dataDir === store.dataDir && line.msg === `data directory ${store.dataDir}`), server.output());
      const warning = lines.find((line) => line.level === 40 && line.mailHostname === 'mailbox');
      assert.match(warning?.msg ?? '', /^MAILROOM_HOSTNAME is "mailbox", not a fully qualified domain name: the DNS records Mailroom suggests \(return-path MX, SPF\) will be wrong/);
    } finally {
      assert.equal(await server.stop(), 0);
    }
    for (const name of ['mail.example.com', 'MX1.Example.NET.']) assert.equal(isPublicHostName(name), true, name);
    for (const name of ['mailbox', 'localhost', 'vm.localdomain', 'box.local', '192.0.2.1', 'db.internal']) assert.equal(isPublicHostName(name), false, name);
  });

  it('serves until SIGTERM, then exits cleanly', async () => {
    const server = await startServe(store.env);
    const health = await fetch(`${server.base}/v1/health/check`);
    assert.deepEqual(await health.json(), { status: 'ok' });
    assert.equal(await server.stop(), 0);
  });
});
