/**
 * What the process-level delivery tests (crash, SIGTERM, two workers, two
 * serves) share: a loopback SMTP sink that counts arrivals per message and
 * recipient and can hold its DATA replies, a workspace with a verified sending
 * domain, a burst of sends through the HTTP API, and a few Linux /proc
 * look-ups about real processes.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/database.js';
import { nowIso } from '../../src/lib/ids.js';
import { generateDkimKeyPair } from '../../src/domains/dkim-keys.js';
import { mailroomCommand } from './serve-process.js';
import { headerOf } from './smtp-sink.js';
import type { FreshStore } from './test-store.js';
import { settleWithin } from './wait-for.js';

export interface HeldSink {
  port: number;
  /** How many times each message id arrived (DATA received in full), by its envelope sender `bounce+<id>@…`. */
  arrivals: Map<string, number>;
  /** Arrivals per connection tag (see `tagConnection`). */
  byTag: Map<string, number>;
  /** Every arrival in order (see SinkArrival). */
  log: SinkArrival[];
  /** Arrivals in all, a message that came twice counting twice. */
  received(): number;
  /** Messages received in full whose 250 reply is being held back. */
  held(): number;
  /** Those arrivals, in order. */
  heldLog(): SinkArrival[];
  /** Holds back the replies once `arrivals` messages have arrived in all (see received()), until release(). */
  holdFrom(arrivals: number): void;
  /** Answers every held message (those whose connection is still open) and stops holding. */
  release(): void;
  close(): Promise<void>;
}

/** One message received in full: its Mailroom message id, envelope recipients, `Message-ID` header, connection's tag, and when. */
export interface SinkArrival {
  id: string;
  to: string[];
  messageIdHeader: string | undefined;
  tag: string;
  at: number;
}

/** Enough of a message to hold its header block. */
const HEAD_BYTES = 16 * 1024;

export interface HeldSinkOptions {
  /** Hold the replies from this many arrivals on (0: from the first); by default none is held until holdFrom(). */
  holdFrom?: number;
  /** Names the client of a new connection from its port, e.g. the process it belongs to. */
  tagConnection?: (clientPort: number) => string;
}

/**
 * A real SMTP server on loopback (smtp-server) that keeps counts and, of each
 * arrival, its envelope and Message-ID (see SinkArrival), not the message. A
 * message counts as arrived once its DATA is in: a relay that then replies 250
 * has it, even if the client dies before reading the reply. Holding replies
 * freezes deliveries at a chosen point, so a test can kill or stop the sender
 * at a moment decided by a condition rather than by timing.
 */
export async function startHeldSink(options: HeldSinkOptions = {}): Promise<HeldSink> {
  const arrivals = new Map<string, number>();
  const byTag = new Map<string, number>();
  const log: HeldSink['log'] = [];
  const tags = new Map<string, string>();
  const open = new Set<string>();
  let held: { session: string; arrival: SinkArrival; answer(): void }[] = [];
  let holdFrom = options.holdFrom;
  let holding = holdFrom === 0;
  let total = 0;

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    hideDSN: false,
    logger: false,
    closeTimeout: 1_000,
    onConnect(session, callback) {
      open.add(session.id);
      if (options.tagConnection) tags.set(session.id, options.tagConnection(session.remotePort));
      callback();
    },
    onClose(session) {
      open.delete(session.id);
    },
    onData(stream, session, callback) {
      let head = '';
      stream.on('data', (chunk: Buffer) => {
        if (head.length < HEAD_BYTES) head += chunk.toString('latin1');
      });
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const id = /^bounce\+([^@.]+)/.exec(from)?.[1] ?? `unknown:${from}`;
        arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
        const tag = tags.get(session.id) ?? 'untagged';
        byTag.set(tag, (byTag.get(tag) ?? 0) + 1);
        const arrival = { id, to: session.envelope.rcptTo.map((r) => r.address), messageIdHeader: headerOf(head, 'Message-ID'), tag, at: Date.now() };
        log.push(arrival);
        total++;
        if (holdFrom !== undefined && total > holdFrom) holding = true;
        if (holding) held.push({ session: session.id, arrival, answer: () => callback() });
        else callback();
      });
    },
  });
  // A client killed mid-session resets its connection (ECONNRESET): smtp-server reports that as an
  // 'error' event, which with no listener would end the test process.
  server.on('error', () => {});
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as { port: number };
  return {
    port,
    arrivals,
    byTag,
    log,
    received: () => total,
    held: () => held.length,
    heldLog: () => held.map((h) => h.arrival),
    holdFrom: (arrivals) => void (holdFrom = arrivals),
    release() {
      holding = false;
      holdFrom = undefined;
      const answering = held;
      held = [];
      for (const { session, answer } of answering) if (open.has(session)) answer();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Settings that point a `mailroom` process at the store and have it relay through the sink, with no send limit in the way. */
export function relayEnv(store: FreshStore, sink: HeldSink): Record<string, string> {
  return { ...store.env, MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${sink.port}`, RATE_LIMIT_SEND_PER_MIN: '1000000' };
}

/**
 * Ends whatever of a delivery test's rig was set up: the sink's held replies, the processes (see ensureGone),
 * the sink, the test's connection to the store, and the store.
 */
export async function tearDownRig(rig: { sink?: HeldSink; children: (ChildProcess | undefined)[]; ws?: SmtpWorkspace; store?: FreshStore }): Promise<void> {
  rig.sink?.release();
  for (const child of rig.children) await ensureGone(child);
  await rig.sink?.close();
  await rig.ws?.db.destroy();
  await rig.store?.drop();
}

/** Message ids that arrived twice or more, and those that never did. */
export function tally(sink: HeldSink, ids: string[]) {
  const twice = ids.filter((id) => (sink.arrivals.get(id) ?? 0) >= 2);
  const missing = ids.filter((id) => !sink.arrivals.has(id));
  const known = new Set(ids);
  const strangers = [...sink.arrivals.keys()].filter((id) => !known.has(id));
  return { twice: twice.length, missing, strangers };
}

/** `id recipient`: one recipient's copy of one message, as the sink's arrivals are counted per recipient. */
export const copyOf = (id: string, recipient: string) => `${id} ${recipient}`;

/** Like tally, per recipient: of the sends' copies (copyOf), those that arrived twice or more and those that never did; `copies` counts every copy that arrived. */
export function tallyCopies(sink: HeldSink, sends: { id: string; to: string[] }[]) {
  const copies = new Map<string, number>();
  for (const arrival of sink.log) for (const to of arrival.to) copies.set(copyOf(arrival.id, to), (copies.get(copyOf(arrival.id, to)) ?? 0) + 1);
  const expected = sends.flatMap((s) => s.to.map((to) => copyOf(s.id, to)));
  return { copies, twice: expected.filter((c) => (copies.get(c) ?? 0) >= 2), missing: expected.filter((c) => !copies.has(c)) };
}

export interface SmtpWorkspace {
  apiKey: string;
  workspaceId: string;
  /** The sender to send from: its domain is verified, with a real DKIM key. */
  from: string;
  /** The test's own connection to the store, for reading jobs (close it with db.destroy()). */
  db: Db;
}

/**
 * A workspace (through `mailroom migrate`, then `mailroom workspace create`)
 * and a verified domain row with a real DKIM key inserted directly: the smtp
 * provider sends only from a verified domain, and DNS verification is not what
 * these tests are about.
 */
export async function smtpWorkspace(storeEnv: Record<string, string>, domain = 'crash.example'): Promise<SmtpWorkspace> {
  const migrated = mailroomCommand(['migrate'], storeEnv);
  assert.equal(migrated.status, 0, migrated.stderr);
  const created = mailroomCommand(['workspace', 'create', '--name', 'Delivery', '--json'], storeEnv);
  assert.equal(created.status, 0, created.stderr);
  const { workspace_id: workspaceId, api_key: apiKey } = JSON.parse(created.stdout) as { workspace_id: string; api_key: string };
  const db = openDatabase(loadConfig(storeEnv));
  const keys = await generateDkimKeyPair();
  const now = nowIso();
  await db
    .insertInto('domains')
    .values({
      id: `dom_${domain.replace(/\W/g, '_')}`, workspace_id: workspaceId, domain, status: 'verified', dkim_selector: keys.selector,
      dkim_private_key: keys.privateKeyPem, dkim_public_key: keys.publicKeyBase64, return_path_domain: `mr-bounces.${domain}`,
      verification_error: null, created_at: now, verified_at: now, last_checked_at: now, open_tracking: 0, click_tracking: 0,
    })
    .execute();
  return { apiKey, workspaceId, from: `Mailroom <hello@${domain}>`, db };
}

/** One send as the client saw it: its recipients, and the answer (`no answer`: the connection failed first). */
export interface SendAnswer {
  to: string[];
  status: number | 'no answer';
  /** The `message_id` of a 200. */
  id?: string;
  /** The body of any other answer. */
  body?: string;
}

/** Posts send number `n` (to `recipients` addresses) through the HTTP API; a connection that fails is an answer too. */
export async function postSend(base: string, ws: SmtpWorkspace, n: number, { tag = 'm', recipients = 1 } = {}): Promise<SendAnswer> {
  const to = Array.from({ length: recipients }, (_, k) => (recipients === 1 ? `${tag}${n}@example.net` : `${tag}${n}.${k}@example.net`));
  let res: Response;
  let body: string;
  try {
    res = await fetch(`${base}/v1/send`, {
      method: 'POST',
      headers: { 'x-api-key': ws.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ from_email: ws.from, to, subject: `Message ${tag}${n}`, text: `Hello ${n}` }),
    });
    body = await res.text();
  } catch {
    return { to, status: 'no answer' };
  }
  if (res.status !== 200) return { to, status: res.status, body };
  const { data } = JSON.parse(body) as { data: { message_id: string; status: string } };
  assert.equal(data.status, 'sent', body);
  return { to, status: 200, id: data.message_id };
}

/** Accepts `count` one-recipient sends through the HTTP API, `chunk` at a time concurrently; returns their message ids. */
export async function acceptSends(base: string, ws: SmtpWorkspace, count: number, { chunk = 50, tag = 'm' } = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += chunk) {
    const batch = Array.from({ length: Math.min(chunk, count - start) }, async (_, i) => {
      const answer = await postSend(base, ws, start + i, { tag });
      assert.equal(answer.status, 200, JSON.stringify(answer));
      return answer.id!;
    });
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

/** The delivery jobs by state: `leased` are pending jobs with a lease owner (of `owner` only, when given). */
export async function jobCounts(db: Db, owner?: string): Promise<{ pending: number; done: number; leased: number }> {
  const rows = await db
    .selectFrom('delivery_jobs')
    .select(['state', 'lease_owner'])
    .execute();
  const leased = rows.filter((r) => r.state === 'pending' && r.lease_owner !== null && (owner === undefined || r.lease_owner === owner));
  return { pending: rows.filter((r) => r.state === 'pending').length, done: rows.filter((r) => r.state === 'done').length, leased: leased.length };
}

/**
 * The pid, among `pids`, whose process holds the client end of the loopback
 * TCP connection from `clientPort` to `serverPort`: the kernel's own answer
 * (/proc/net/tcp gives the socket's inode, /proc/PID/fd who holds it). Linux only.
 */
export function pidOfConnection(clientPort: number, serverPort: number, pids: number[]): number | undefined {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const portOf = (address: string) => parseInt(address.split(':').at(-1)!, 16);
      if (portOf(fields[1]!) === clientPort && portOf(fields[2]!) === serverPort) inodes.add(fields[9]!);
    }
  }
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode && inodes.has(inode)) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

/** The exit code of a process asked to stop (or killed), failing after `ms` rather than hanging the run. */
export function exitWithin(stopping: Promise<number | null>, ms: number, what: string): Promise<number | null> {
  return settleWithin(stopping, ms, `${what} to exit`);
}

/** Ends a process a failed test may have left running (SIGKILL: with a sink holding replies, SIGTERM would wait out the grace). */
export async function ensureGone(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
