/**
 * A private, real Postfix (Debian's `postfix` package) for tests and
 * benchmarks: its own config, queue and data directories under a fresh temp
 * dir, its smtpd on a free loopback port, everything relayed to one loopback
 * next hop, no DNS, no local delivery, and short retry times.
 *
 * Multiple-instance notes (Postfix 3.7, Debian bookworm):
 * - `postfix -c DIR` run as root needs neither `alternate_config_directories`
 *   nor `postmulti`, so /etc/postfix is neither read nor changed (the
 *   default instance may even have no main.cf at all, as after installing
 *   with "No configuration"). Only `meta_directory` (postfix-files,
 *   dynamicmaps.cf) stays the shared /etc/postfix, read-only.
 * - master.cf is written from scratch: no chroot (Debian's stock master.cf
 *   chroots into the queue directory, which then needs copies of
 *   /etc/resolv.conf and friends), no port 25, no pickup/local. tlsmgr is
 *   there for the smtp client's TLS (relayAuth): without it the client
 *   finds no entropy and turns TLS off.
 * - data_directory must be owned by the `postfix` user: it is left for
 *   `postfix start` (post-install create-missing) to create.
 * - The temp dir is made world-searchable so the daemons can reach the
 *   queue after dropping privileges.
 * - Config files are dated a minute back (writeConfig): Postfix re-reads a
 *   file younger than a second or two, 300 ms at a time, which made every
 *   start take ~2 s. With that, `postfix start` takes ~0.2 s and stop ~50 ms;
 *   the master has bound the smtpd port when `postfix start` returns, and an
 *   smtpd is spawned on the first connection.
 * - Stopping: the master's exit is watched through /proc, where a zombie
 *   counts as gone (a container's init may not reap daemonized processes).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);

const POSTFIX = '/usr/sbin/postfix';
const SMTP_SINK = '/usr/sbin/smtp-sink';
const NOT_INSTALLED = "Postfix is not installed: run `apt-get install -y postfix` (CI's .ci/run installs it)";
const GREETING_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 10_000;
const START_ATTEMPTS = 3;

export interface PostfixOptions {
  /** Loopback port of the next-hop SMTP server every message is relayed to (relayhost [127.0.0.1]:port). */
  relayPort: number;
  /**
   * Optional per-domain routes, e.g. { 'bounces.example.test': 'smtp:[127.0.0.1]:2526' } (a transport_maps
   * table), so Postfix's own DSNs/bounces addressed to that domain go to a loopback receiver instead of the relayhost.
   */
  transports?: Record<string, string>;
  /**
   * Clients Postfix relays for (`mynetworks`; default 127.0.0.0/8). A network without loopback makes
   * `smtpd_relay_restrictions = permit_mynetworks, reject` refuse Mailroom: "554 5.7.1 …: Relay access denied".
   */
  mynetworks?: string;
  /**
   * Credentials for the relayhost: Postfix then requires TLS to it (`smtp_tls_security_level = encrypt`, the
   * certificate not verified) and authenticates with SASL PLAIN or LOGIN (Debian's libsasl2-modules), as an
   * application's MTA relays through Mailroom's SMTP submission.
   */
  relayAuth?: { username: string; password: string };
}

export interface PostfixInstance {
  /** Port of its smtpd on 127.0.0.1. */
  port: number;
  /** The temp dir holding etc/ (config_directory), queue/, data/ and maillog. */
  dir: string;
  /** The maillog so far (for failure messages). */
  maillog(): string;
  /** Stops the master and its daemons, then removes the temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

/** Path of Postfix's smtp-sink, or throws an Error telling how to install postfix. */
export function smtpSinkPath(): string {
  if (!existsSync(SMTP_SINK)) throw new Error(NOT_INSTALLED);
  return SMTP_SINK;
}

/**
 * Masters still running, killed with their daemons if the test process exits (or is interrupted or terminated)
 * without stopping them: a daemonized master would outlive it.
 */
const running = new Map<number, string>();
function killAll() {
  for (const [pid, dir] of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {}
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {}
  }
  running.clear();
}
let reaperInstalled = false;
function installReaper() {
  if (reaperInstalled) return;
  reaperInstalled = true;
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      process.kill(process.pid, signal); // then the signal's usual effect (this listener is gone)
    });
  }
}

export async function startPostfix(options: PostfixOptions): Promise<PostfixInstance> {
  if (!existsSync(POSTFIX)) throw new Error(NOT_INSTALLED);
  installReaper();
  checkPort(options.relayPort, 'relayPort');
  const transports = Object.entries(options.transports ?? {});
  for (const [domain, nexthop] of transports) {
    // One table line each: no whitespace, which would split or continue a line.
    if (!/^[^\s#]+$/.test(domain) || !/^\S+$/.test(nexthop)) throw new Error(`bad transport ${JSON.stringify(domain)} -> ${JSON.stringify(nexthop)}`);
  }

  const dir = await mkdtemp(join(tmpdir(), 'mailroom-postfix-'));
  await chmod(dir, 0o755);
  const etc = join(dir, 'etc');
  const maillogFile = join(dir, 'maillog');
  const readLog = () => {
    try {
      return readFileSync(maillogFile, 'utf8');
    } catch {
      return '';
    }
  };
  const maillog = () => readLog() || '(no maillog yet)';
  await mkdir(etc);
  await mkdir(join(dir, 'queue')); // root-owned; postfix start creates its subdirectories (and data/)
  await writeConfig(join(etc, 'main.cf'), mainCf(dir, options.relayPort, transports.length > 0, options.mynetworks ?? '127.0.0.0/8', options.relayAuth !== undefined));
  if (options.relayAuth) {
    const { username, password } = options.relayAuth;
    if (!/^\S+$/.test(username) || !/^\S+$/.test(password)) throw new Error('relayAuth must have no whitespace');
    await writeConfig(join(etc, 'sasl_passwd'), `[127.0.0.1]:${options.relayPort} ${username}:${password}\n`);
  }
  if (transports.length > 0) await writeConfig(join(etc, 'transport'), transports.map(([domain, nexthop]) => `${domain} ${nexthop}\n`).join(''));

  let port = 0;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    await writeConfig(join(etc, 'master.cf'), masterCf(port));
    const logged = readLog().length;
    try {
      await run(POSTFIX, ['-c', etc, 'start'], { timeout: GREETING_TIMEOUT_MS });
      break;
    } catch (error) {
      // Another process may have taken the port between freePort() and the master's bind: try another.
      const log = readLog();
      if (attempt < START_ATTEMPTS && /Address already in use/.test(log.slice(logged))) continue;
      await rm(dir, { recursive: true, force: true });
      throw new Error(`postfix start failed: ${(error as Error).message}\n--- maillog ---\n${tail(log)}`);
    }
  }

  const masterPid = Number.parseInt(readFileSync(join(dir, 'queue', 'pid', 'master.pid'), 'utf8'), 10);
  running.set(masterPid, dir);

  let stopped: Promise<void> | undefined;
  const instance: PostfixInstance = {
    port,
    dir,
    maillog,
    stop: () => (stopped ??= stop(etc, dir, masterPid)),
  };

  try {
    await waitForGreeting(port, GREETING_TIMEOUT_MS);
  } catch (error) {
    const log = maillog();
    await instance.stop();
    throw new Error(`Postfix on 127.0.0.1:${port} did not greet: ${(error as Error).message}\n--- maillog ---\n${tail(log)}`);
  }
  return instance;
}

/**
 * Postfix re-reads a config file (main.cf, master.cf, texthash: tables), sleeping 300 ms each time, until its
 * mtime is at least a second or two in the past, in case it is still being written. A file dated a minute back
 * saves every start ~2 s.
 */
async function writeConfig(path: string, text: string): Promise<void> {
  await writeFile(path, text);
  const past = new Date(Date.now() - 60_000);
  await utimes(path, past, past);
}

function mainCf(dir: string, relayPort: number, withTransports: boolean, mynetworks: string, withRelayAuth: boolean): string {
  const lines = [
    '# Written by test/helpers/postfix.ts: a private instance, nothing shared with /etc/postfix but meta_directory.',
    'compatibility_level = 3.6',
    `config_directory = ${dir}/etc`,
    `queue_directory = ${dir}/queue`,
    `data_directory = ${dir}/data`,
    // Logs go to a file in the temp dir through this instance's postlogd, not to syslog.
    `maillog_file = ${dir}/maillog`,
    `maillog_file_prefixes = ${dir}`,
    'inet_interfaces = loopback-only',
    'inet_protocols = ipv4',
    `mynetworks = ${mynetworks}`,
    'myhostname = postfix.mailroom.test',
    'mydomain = mailroom.test',
    'myorigin = $myhostname',
    // Nothing is delivered locally: every domain is relayed.
    'mydestination =',
    'local_recipient_maps =',
    'alias_maps =',
    'alias_database =',
    'biff = no',
    `relayhost = [127.0.0.1]:${relayPort}`,
    withTransports ? `transport_maps = texthash:${dir}/etc/transport` : '',
    ...(withRelayAuth
      ? [
          'smtp_sasl_auth_enable = yes',
          `smtp_sasl_password_maps = texthash:${dir}/etc/sasl_passwd`,
          'smtp_sasl_security_options = noanonymous',
          'smtp_sasl_tls_security_options = noanonymous',
          'smtp_tls_security_level = encrypt',
        ]
      : []),
    'smtpd_relay_restrictions = permit_mynetworks, reject',
    'smtpd_recipient_restrictions =',
    // No DNS: next hops are bracketed addresses, and the clients' own names are not looked up.
    'smtp_host_lookup = native',
    'smtp_dns_support_level = disabled',
    'lmtp_host_lookup = native',
    'lmtp_dns_support_level = disabled',
    'smtpd_peername_lookup = no',
    'smtputf8_enable = no',
    // A deferred message is retried within seconds.
    'queue_run_delay = 1s',
    'minimal_backoff_time = 1s',
    'maximal_backoff_time = 2s',
    'smtp_connect_timeout = 5s',
  ];
  return lines.filter(Boolean).join('\n') + '\n';
}

/** Only the services a relay needs, none chrooted; the smtpd listens on 127.0.0.1:port only. */
function masterCf(port: number): string {
  return `# service type  private unpriv  chroot  wakeup  maxproc command + args
127.0.0.1:${port} inet n - n - - smtpd
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
proxywrite unix -       -       n       -       1       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
lmtp      unix  -       -       n       -       -       lmtp
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
tlsmgr    unix  -       -       n       1000?   1       tlsmgr
`;
}

function checkPort(port: number, name: string) {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`${name} must be a TCP port, got ${port}`);
}

function tail(text: string, lines = 40): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** Resolves once a "220 " greeting line arrives on 127.0.0.1:port; retries refused or silent connections until the deadline. */
async function waitForGreeting(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no attempt';
  while (Date.now() < deadline) {
    try {
      await greetOnce(port, Math.max(100, Math.min(2_000, deadline - Date.now())));
      return;
    } catch (error) {
      last = (error as Error).message;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`no 220 greeting within ${timeoutMs} ms (last: ${last})`);
}

function greetOnce(port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffer = '';
    let settled = false;
    const done = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        socket.destroy();
        reject(error);
      } else {
        socket.end('QUIT\r\n'); // the 'data' listener keeps draining until the server closes
        resolve();
      }
    };
    const timer = setTimeout(() => done(new Error('timed out waiting for a greeting')), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      if (!buffer.includes('\n')) return;
      if (!buffer.startsWith('220')) done(new Error(`greeting was ${JSON.stringify(buffer.trim())}`));
      else if (/^220 [^\n]*\n/m.test(buffer)) done(); // the last line of a (possibly multi-line) greeting
    });
    socket.on('error', (error) => done(error));
    socket.on('close', () => done(new Error(`connection closed before a greeting (${JSON.stringify(buffer.trim())})`)));
  });
}

/** `postfix abort` signals the master, which signals its process group; then wait until all of it is gone. */
async function stop(etc: string, dir: string, masterPid: number): Promise<void> {
  try {
    // abort = stop without postfix-script's one-second polling loop; the waiting is done below.
    await run(POSTFIX, ['-c', etc, 'abort'], { timeout: STOP_TIMEOUT_MS });
  } catch {
    // Not running (any more): fall through to the wait and the clean-up.
  }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (groupAlive(masterPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  if (groupAlive(masterPid)) {
    try {
      process.kill(-masterPid, 'SIGKILL');
    } catch {}
    while (groupAlive(masterPid) && Date.now() < deadline + 2_000) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  running.delete(masterPid);
  await rm(dir, { recursive: true, force: true });
}

/**
 * Whether any live (non-zombie) process is in the master's process group (the master calls setsid(), so the
 * group id is its pid). Zombies count as gone: in a container whose init does not reap, they linger.
 */
function groupAlive(pgid: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so parse after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}
