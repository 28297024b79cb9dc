import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DEFAULT_WORKER_CONCURRENCY } from '../src/config.js';
import { showServeOutputOfFailedTests, startServe, WORKER_STARTED_LINE, type ServeProcess } from './helpers/serve-process.js';
import {
  copyOf, exitWithin, jobCounts, pidOfConnection, postSend, relayEnv, smtpWorkspace, startHeldSink, tallyCopies, tearDownRig,
  type HeldSink, type SendAnswer, type SmtpWorkspace,
} from './helpers/delivery-rig.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

// Two `mailroom serve` processes (each its API and its delivery thread) on one PostgreSQL database,
// relaying to one loopback SMTP sink, one of them killed with SIGKILL mid-burst. PostgreSQL by nature:
// scripts/run-tests.ts runs this file in the PostgreSQL pass only.

/** Sends accepted across both before the kill… */
const BEFORE_KILL = 160;
/** …sends the victim answers in a stream of STREAMS at a time before it is killed (more are on their way)… */
const STREAMED_BEFORE_KILL = 20;
const STREAMS = 4;
/** …sends to the survivor alone while the victim is down and restarting, and across both again after. */
const WHILE_DOWN = 60;
const AFTER_RESTART = 100;
const CHUNK = 20;
/** A send's recipients: 1 to 3, each its own SMTP transaction. */
const recipientsOf = (n: number) => (n % 3) + 1;
/** The sink answers this many transactions, then holds its replies: the kill lands with hand-overs at the sink unanswered. */
const HOLD_FROM = 120;
const DOMAIN = 'serve-pair.example';
const DRAIN_MS = 60_000;

function report(t: { diagnostic(message: string): void }, line: string): void {
  t.diagnostic(line);
  console.log(`[serve-pair-crash] ${line}`);
}

interface Sent extends SendAnswer {
  n: number;
  via: ServeProcess;
}

describe('two mailroom serve processes on one PostgreSQL database, one killed with SIGKILL mid-burst', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let ws: SmtpWorkspace;
  let sink: HeldSink;
  let env: Record<string, string>;
  const processes: ServeProcess[] = [];

  before(async () => {
    store = await freshStore('postgres');
    ws = await smtpWorkspace(store.env, DOMAIN);
    // Each connection to the sink is put down to the serve process holding its client end (the delivery thread is in it).
    sink = await startHeldSink({
      holdFrom: HOLD_FROM,
      tagConnection: (port) => String(pidOfConnection(port, sink.port, processes.map((p) => p.child.pid!)) ?? 'unknown'),
    });
    env = {
      ...relayEnv(store, sink),
      // Short, so the killed process's jobs are taken over 4 s after the kill rather than a minute (renewed every third of it while in flight).
      WORKER_LEASE_MS: '4000',
      WORKER_POLL_MS: '100',
    };
  });
  after(() => tearDownRig({ sink, children: processes.map((p) => p.child), ws, store }));

  it("delivers every send answered 200 to each of its recipients; only the killed one's unfinished claims arrive twice", { timeout: 120_000 }, async (t) => {
    const started = Date.now();
    const sent: Sent[] = [];
    let next = 0;
    const send = async (via: ServeProcess): Promise<Sent> => {
      const n = next++;
      const answer: Sent = { n, via, ...(await postSend(via.base, ws, n, { recipients: recipientsOf(n) })) };
      sent.push(answer);
      return answer;
    };
    /** `count` sends, CHUNK at a time, dealt in turn to `to`; every one must be answered 200. */
    const burst = async (count: number, to: ServeProcess[]) => {
      for (let done = 0; done < count; done += CHUNK) {
        const chunk = await Promise.all(Array.from({ length: Math.min(CHUNK, count - done) }, (_, i) => send(to[i % to.length]!)));
        for (const answer of chunk) assert.equal(answer.status, 200, JSON.stringify({ ...answer, via: answer.via.base }));
      }
    };
    /** A serve whose store connections carry `name` (PostgreSQL's application_name), so the test can tell when they are gone. */
    const startOne = async (name: string) => {
      const url = new URL(env.DATABASE_URL!);
      url.searchParams.set('application_name', name);
      const server = await startServe({ ...env, DATABASE_URL: url.toString() });
      processes.push(server);
      const owner = (await waitFor(() => WORKER_STARTED_LINE.exec(server.output()), 'the delivery thread to start', { timeoutMs: 30_000 }))[1]!;
      return { server, owner, name, tag: String(server.child.pid) };
    };
    const backendsOf = async (name: string) =>
      Number((await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = current_database() and application_name = ${name}`.execute(ws.db)).rows[0]!.n);

    const [survivor, victim] = await Promise.all([startOne('survivor'), startOne('victim')]);
    await burst(BEFORE_KILL, [survivor.server, victim.server]);
    // Both deliver; the sink took HOLD_FROM transactions and holds the replies to the next ones, the victim's among them.
    await waitFor(() => sink.heldLog().some((a) => a.tag === victim.tag), 'the sink to hold a reply to the victim', { timeoutMs: DRAIN_MS });

    // Mid-burst: the victim is taking sends, STREAMS at a time, when it is killed.
    const answeredBy = (p: ServeProcess) => sent.filter((s) => s.via === p && s.status === 200).length;
    const victimBefore = answeredBy(victim.server);
    const streams = Array.from({ length: STREAMS }, async () => {
      for (;;) if ((await send(victim.server)).status !== 200) return;
    });
    await waitFor(() => answeredBy(victim.server) >= victimBefore + STREAMED_BEFORE_KILL, `the victim to answer ${STREAMED_BEFORE_KILL} more sends`);
    assert.ok((await backendsOf(victim.name)) > 0, 'the victim holds store connections, named');
    victim.server.child.kill('SIGKILL');
    assert.equal(await exitWithin(victim.server.stop(), 10_000, 'the killed serve'), null);
    assert.equal(victim.server.child.signalCode, 'SIGKILL');
    await Promise.all(streams);
    const cutOff = sent.filter((s) => s.via === victim.server && s.status !== 200);
    assert.ok(cutOff.every((s) => s.status === 'no answer'), `the victim answered nothing but 200: ${JSON.stringify(cutOff.map((s) => s.status))}`);

    // A statement the victim sent before it died still runs to its end (a claim, an outcome's COMMIT); its backends exit after.
    await waitFor(async () => (await backendsOf(victim.name)) === 0, "the victim's store connections to end", { timeoutMs: 10_000 });
    // The store as the victim left it: its claims not finished are what it had in flight, handed over or about to be.
    const claimedAtKill = await ws.db.selectFrom('delivery_jobs').select('message_id').where('state', '=', 'pending').where('lease_owner', '=', victim.owner).execute();
    const unfinished = new Set(claimedAtKill.map((j) => j.message_id));
    const unfinishedCopies = claimedAtKill.length === 0 ? 0 : Number(
      (await ws.db.selectFrom('log_entries').select((eb) => eb.fn.countAll().as('n')).where('type', '=', 'send').where('message_id', 'in', [...unfinished]).executeTakeFirstOrThrow()).n,
    );
    // In flight, proven: the sink has these of the victim's transactions in full and never answered them.
    const cutOffAtSink = sink.heldLog().filter((a) => a.tag === victim.tag);
    assert.ok(cutOffAtSink.length > 0, 'the victim had transactions at the sink, unanswered, when it was killed');
    assert.ok(cutOffAtSink.every((a) => unfinished.has(a.id)), 'each of them is a job the victim held, not finished');
    const victimDelivered = sink.byTag.get(victim.tag) ?? 0;
    sink.release(); // the survivor's held replies go; the victim's connections died with it

    // Restarted, while the survivor alone takes the sends; then both again.
    const [restarted] = await Promise.all([startOne('restarted'), burst(WHILE_DOWN, [survivor.server])]);
    await burst(AFTER_RESTART, [survivor.server, restarted.server]);

    const answered = sent.filter((s): s is Sent & { id: string } => s.status === 200);
    await waitFor(() => tallyCopies(sink, answered).missing.length === 0, () => `every answered send's copies to reach the sink (${tallyCopies(sink, answered).missing.length} missing)`, {
      timeoutMs: DRAIN_MS,
      intervalMs: 100,
    });
    await waitFor(async () => (await jobCounts(ws.db)).pending === 0, 'every job to be done', { timeoutMs: 30_000, intervalMs: 100 });
    const drained = Date.now() - started;
    assert.deepEqual(await Promise.all([exitWithin(survivor.server.stop(), 40_000, 'the survivor'), exitWithin(restarted.server.stop(), 40_000, 'the restarted serve')]), [0, 0]);

    const { copies, twice, missing } = tallyCopies(sink, answered);
    assert.deepEqual(missing, [], 'every send answered 200 reached the sink, for each of its recipients');
    // Nothing arrived that the store does not hold: besides the answered sends, only sends the victim committed but died before answering.
    const stored = new Set((await ws.db.selectFrom('messages').select('id').execute()).map((m) => m.id));
    const answeredIds = new Set(answered.map((s) => s.id));
    const strangers = [...new Set(sink.log.map((a) => a.id))].filter((id) => !answeredIds.has(id));
    assert.deepEqual(strangers.filter((id) => !stored.has(id)), [], 'every message that arrived is one the store accepted');
    assert.ok(stored.size - answeredIds.size <= cutOff.length, `${stored.size - answeredIds.size} stored but unanswered, more than the ${cutOff.length} sends the kill cut off`);
    // Those too reached each of their recipients: what the store accepted is delivered, answered or not.
    const entries = await ws.db.selectFrom('log_entries').select(['message_id', 'recipient']).where('type', '=', 'send').execute();
    const recipientsByMessage = new Map<string, string[]>();
    for (const e of entries) recipientsByMessage.set(e.message_id, [...(recipientsByMessage.get(e.message_id) ?? []), e.recipient]);
    const storedSends = [...recipientsByMessage].map(([id, to]) => ({ id, to }));
    assert.deepEqual(tallyCopies(sink, storedSends).missing, [], 'every send the store holds reached the sink, for each of its recipients');

    // The duplicates: only the victim's unfinished claims, each sent once more, never beyond them.
    const duplicatedMessages = new Set(twice.map((c) => c.split(' ')[0]!));
    assert.deepEqual([...duplicatedMessages].filter((id) => !unfinished.has(id)), [], 'nothing arrived twice but what the victim held unfinished');
    assert.ok(twice.length <= unfinishedCopies, `${twice.length} copies arrived twice, more than the ${unfinishedCopies} recipients of the victim's ${unfinished.size} unfinished jobs`);
    assert.deepEqual(cutOffAtSink.flatMap((a) => a.to.map((to) => copyOf(a.id, to))).filter((c) => (copies.get(c) ?? 0) < 2), [], 'each transaction cut off at the sink was handed over again');
    assert.deepEqual([...copies].filter(([, count]) => count > 2), [], 'no copy arrived three times');
    // Each repeat is the victim's hand-over done again by another process: the first copy came through the victim's connections.
    const carriers = new Map<string, string[]>();
    for (const a of sink.log) for (const to of a.to) carriers.set(copyOf(a.id, to), [...(carriers.get(copyOf(a.id, to)) ?? []), a.tag]);
    const notTheVictimsRepeat = (c: string) => carriers.get(c)![0] !== victim.tag || carriers.get(c)![1] === victim.tag;
    assert.deepEqual(twice.filter(notTheVictimsRepeat).map((c) => [c, carriers.get(c)]), []);
    // A recipient's server tells the repeat by its Message-ID, the same in both copies.
    assert.deepEqual(sink.log.filter((a) => a.messageIdHeader !== `<${a.id}@${DOMAIN}>`).map((a) => [a.id, a.messageIdHeader]), []);
    const takenOver = await ws.db.selectFrom('delivery_jobs').select('message_id').where('attempts', '>', 1).execute();
    // A lease lost otherwise (a renewal late past WORKER_LEASE_MS) would show here: say whether the processes logged one.
    const renewalsFailed = processes.reduce((n, p) => n + p.output().split('"msg":"could not renew delivery leases').length - 1, 0);
    assert.deepEqual(takenOver.filter((j) => !unfinished.has(j.message_id)), [], `no job but the victim's was claimed twice (${renewalsFailed} failed lease renewals logged)`);

    const share = (p: { tag: string }) => sink.byTag.get(p.tag) ?? 0;
    report(
      t,
      `${sent.length} sends, ${answered.length} answered 200 (${answered.reduce((n, s) => n + s.to.length, 0)} copies), ${cutOff.length} cut off by the kill ` +
        `(${stored.size - answeredIds.size} of them stored and delivered); ${twice.length} copies of ${duplicatedMessages.size} messages arrived twice, ` +
        `within the killed process's ${unfinished.size} unfinished jobs (${unfinishedCopies} copies; WORKER_CONCURRENCY ${DEFAULT_WORKER_CONCURRENCY}), ${cutOffAtSink.length} of its transactions cut off at the sink; ` +
        `${takenOver.length} jobs claimed again; transactions by the survivor ${share(survivor)}, the victim ${victimDelivered} before the kill, the restarted one ${share(restarted)}; ` +
        `drained in ${drained} ms`,
    );
  });
});
