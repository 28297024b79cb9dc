import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServe, startWorkerProcess, type ServeProcess, type WorkerProcess } from './helpers/serve-process.js';
import { acceptSends, ensureGone, exitWithin, jobCounts, pidOfConnection, smtpWorkspace, startHeldSink, tally, type HeldSink, type SmtpWorkspace } from './helpers/delivery-rig.js';
import { migratedStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

// Two `mailroom worker` processes claiming from one PostgreSQL database (FOR UPDATE SKIP LOCKED) and
// relaying to one loopback SMTP sink. PostgreSQL by nature: scripts/run-tests.ts runs this file in the
// PostgreSQL pass only.
const BATCH = 5_000;
const DRAIN_MS = 120_000;

function report(t: { diagnostic(message: string): void }, line: string): void {
  t.diagnostic(line);
  console.log(`[two-workers] ${line}`);
}

describe('two mailroom worker processes on one PostgreSQL database', () => {
  let store: FreshStore;
  let ws: SmtpWorkspace;
  let sink: HeldSink;
  let api: ServeProcess;
  let env: Record<string, string>;
  const workers: WorkerProcess[] = [];
  /** Every message id accepted in this file, batch after batch: the sink must see nothing else. */
  const accepted: string[] = [];

  before(async () => {
    store = await migratedStore('postgres');
    ws = await smtpWorkspace(store.env, 'two-workers.example');
    // Each connection to the sink is put down to the worker process holding its client end (by the kernel's socket table).
    sink = await startHeldSink({ tagConnection: (port) => String(pidOfConnection(port, sink.port, workers.map((w) => w.pid)) ?? 'unknown') });
    env = { ...store.env, MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${sink.port}`, RATE_LIMIT_SEND_PER_MIN: '1000000', RATE_LIMIT_RECIPIENTS_PER_MIN: '1000000', WORKER_POLL_MS: '100' };
    // The API alone: what it accepts waits in the queue until the workers start.
    api = await startServe({ ...env, WORKER_ENABLED: 'false' });
  });
  after(async () => {
    sink?.release();
    for (const w of workers) await ensureGone(w.child);
    const apiCode = await api?.stop();
    await sink?.close();
    await ws?.db.destroy();
    await store?.drop();
    assert.equal(apiCode, 0, 'the API exited cleanly on SIGTERM');
  });

  /** Accepts a batch through the API with no worker running: all of it pending, none leased, nothing sent. */
  async function queueBatch(tag: string): Promise<string[]> {
    const before = sink.received();
    const ids = await acceptSends(api.base, ws, BATCH, { chunk: 100, tag });
    accepted.push(...ids);
    const counts = await jobCounts(ws.db);
    assert.deepEqual([counts.pending, counts.leased], [BATCH, 0]);
    assert.equal(sink.received(), before);
    return ids;
  }

  const startTwo = async (extra: Record<string, string> = {}) => {
    const pair = await Promise.all([startWorkerProcess({ ...env, ...extra }), startWorkerProcess({ ...env, ...extra })]);
    workers.push(...pair);
    return pair;
  };
  const share = (w: WorkerProcess) => sink.byTag.get(String(w.pid)) ?? 0;
  /** What went wrong in the workers' own words: failed lease renewals and outcome writes (each lets a job in flight be taken over). */
  const troubles = (procs: WorkerProcess[]) => {
    const count = (msg: string) => procs.reduce((n, w) => n + w.output().split(`"msg":"${msg}`).length - 1, 0);
    return `${count('could not renew delivery leases')} failed lease renewals, ${count('could not record a delivery attempt')} failed outcome writes`;
  };
  const allArrived = (ids: string[]) =>
    waitFor(() => tally(sink, ids).missing.length === 0, `all ${BATCH} messages of the batch to reach the sink`, { timeoutMs: DRAIN_MS, intervalMs: 100 });
  const allDone = () => waitFor(async () => (await jobCounts(ws.db)).pending === 0, 'every job to be done', { timeoutMs: 30_000, intervalMs: 100 });

  it(`drain ${BATCH} messages to one sink, each exactly once, both doing a share`, { timeout: 240_000 }, async (t) => {
    const ids = await queueBatch('a');
    const started = Date.now();
    const [one, two] = await startTwo();
    await allArrived(ids);
    await allDone();
    const drained = Date.now() - started;
    assert.deepEqual(await Promise.all([exitWithin(one.stop(), 40_000, 'worker 1'), exitWithin(two.stop(), 40_000, 'worker 2')]), [0, 0]);

    const { twice, missing, strangers } = tally(sink, ids);
    assert.deepEqual([twice, missing, strangers], [0, [], []], `every message exactly once, and nothing else (workers: ${troubles([one, two])})`);
    assert.equal(sink.received(), BATCH);
    assert.equal(sink.byTag.get('unknown'), undefined, 'every connection came from one of the two workers');
    assert.ok(share(one) > 0 && share(two) > 0, `both did a share: ${share(one)} and ${share(two)}`);
    assert.equal(share(one) + share(two), BATCH);
    const attempts = await ws.db.selectFrom('delivery_attempts').select(['outcome']).execute();
    assert.equal(attempts.length, BATCH, 'one attempt per message');
    assert.ok(attempts.every((a) => a.outcome === 'accepted'));

    report(t, `${BATCH} accepted, ${sink.arrivals.size} arrived, 0 twice; worker ${one.pid}: ${share(one)}, worker ${two.pid}: ${share(two)}; drained in ${drained} ms; ${troubles([one, two])}`);
  });

  it(`lose none of ${BATCH} when one of the two is killed with SIGKILL mid-run`, { timeout: 240_000 }, async (t) => {
    const ids = await queueBatch('b');
    const base = sink.received();
    // Replies are held once 40 % of the batch has arrived: the kill lands mid-run, with hand-overs in flight.
    sink.holdFrom(base + BATCH * 0.4);
    const started = Date.now();
    // A short lease, so the survivor takes over the dead one's jobs in 3 s rather than a minute.
    const [victim, survivor] = await startTwo({ WORKER_LEASE_MS: '3000' });
    await waitFor(() => sink.held() > 0 && share(victim) > 0 && share(survivor) > 0, 'both workers to be delivering, with replies held', {
      timeoutMs: DRAIN_MS,
    });

    victim.child.kill('SIGKILL');
    assert.equal(await exitWithin(victim.exited, 10_000, 'the killed worker'), null);
    // Its jobs as it left them: leased to it and not done is what it had in flight.
    const inFlight = (await jobCounts(ws.db, victim.owner)).leased;
    const arrivedAtKill = sink.received() - base;
    const victimShare = share(victim);
    assert.ok(arrivedAtKill >= BATCH * 0.2 && arrivedAtKill <= BATCH * 0.8, `killed mid-run: ${arrivedAtKill} of ${BATCH} had arrived`);
    assert.ok(inFlight > 0, 'the killed worker had jobs in flight');
    sink.release();

    await allArrived(ids);
    await allDone();
    const drained = Date.now() - started;
    assert.equal(await exitWithin(survivor.stop(), 40_000, 'the surviving worker'), 0);

    const { twice, missing } = tally(sink, ids);
    assert.deepEqual(missing, [], 'none lost');
    assert.deepEqual(tally(sink, accepted).strangers, [], 'nothing but the accepted messages arrived');
    assert.ok(twice <= inFlight, `${twice} arrived twice, more than the ${inFlight} the killed worker had in flight (workers: ${troubles([victim, survivor])})`);
    assert.equal(share(victim), victimShare, 'nothing from the killed worker after the kill');
    const takenOver = await ws.db
      .selectFrom('delivery_jobs')
      .innerJoin('messages', 'messages.id', 'delivery_jobs.message_id')
      .select('delivery_jobs.message_id')
      .where('delivery_jobs.attempts', '>', 1)
      .where('messages.subject', 'like', 'Message b%')
      .execute();

    report(
      t,
      `${BATCH} accepted, ${ids.filter((id) => sink.arrivals.has(id)).length} arrived, ${twice} twice; ${inFlight} in flight at the kill ` +
        `(${arrivedAtKill} of the batch had arrived); killed worker ${victim.pid}: ${victimShare}, survivor ${survivor.pid}: ${share(survivor)}; ` +
        `${takenOver.length} jobs claimed again after the kill; drained in ${drained} ms; ${troubles([victim, survivor])}`,
    );
  });
});
