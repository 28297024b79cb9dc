import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServe, startWorkerProcess, type ServeProcess, type WorkerProcess } from './helpers/serve-process.js';
import { acceptSends, exitWithin, jobCounts, relayEnv, smtpWorkspace, startHeldSink, tally, tearDownRig, type HeldSink, type SmtpWorkspace } from './helpers/delivery-rig.js';
import { migratedStore, TEST_STORE, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

// Real `mailroom` processes delivering to a loopback SMTP sink, on the store this run exercises.
const BURST = 1_000;
/** The sink answers this many messages, then holds its replies: the kill lands with deliveries mid-hand-over. */
const HOLD_FROM = 300;

const smtpEnv = (store: FreshStore, sink: HeldSink, extra: Record<string, string> = {}) => ({
  ...relayEnv(store, sink),
  // Short, so the jobs of a killed process are taken over in 2 s, not a minute (renewed every 2/3 s while in flight).
  WORKER_LEASE_MS: '2000',
  WORKER_POLL_MS: '100',
  ...extra,
});

function report(t: { diagnostic(message: string): void }, line: string): void {
  t.diagnostic(line);
  console.log(`[${TEST_STORE}] ${line}`);
}

describe('mailroom serve killed with SIGKILL mid-burst, then started again', () => {
  let store: FreshStore;
  let ws: SmtpWorkspace;
  let sink: HeldSink;
  const processes: ServeProcess[] = [];

  before(async () => {
    store = await migratedStore();
    ws = await smtpWorkspace(store.env);
    sink = await startHeldSink({ holdFrom: HOLD_FROM });
  });
  after(() => tearDownRig({ sink, children: processes.map((p) => p.child), ws, store }));

  it(`delivers every one of ${BURST} accepted messages at least once; only those in flight at the kill arrive twice`, { timeout: 180_000 }, async (t) => {
    const started = Date.now();
    const env = smtpEnv(store, sink);
    const first = await startServe(env);
    processes.push(first);
    // Accepted through the API while serve's delivery thread delivers them.
    const ids = await acceptSends(first.base, ws, BURST, { chunk: 50 });
    const accepted = Date.now();

    // Delivery is under way: the sink took HOLD_FROM messages and holds the reply to the next ones.
    await waitFor(() => sink.held() > 0, 'the sink to hold the reply to a message in mid-delivery', { timeoutMs: 60_000 });
    // A crash of the service: serve, its delivery thread with it (the OOM killer, or the machine dies).
    first.child.kill('SIGKILL');
    assert.equal(await exitWithin(first.stop(), 10_000, 'the killed serve'), null);
    assert.equal(first.child.signalCode, 'SIGKILL');

    // The store as the dead process left it: leased and not done is what was in flight.
    const atKill = await jobCounts(ws.db);
    const arrivedAtKill = sink.received();
    const heldAtKill = sink.held();
    assert.ok(arrivedAtKill >= HOLD_FROM && arrivedAtKill < BURST, `killed mid-burst (${arrivedAtKill} of ${BURST} had arrived)`);
    assert.equal(atKill.pending + atKill.done, BURST);
    assert.ok(atKill.leased >= heldAtKill, `${atKill.leased} jobs leased, ${heldAtKill} messages held in the sink`);
    sink.release(); // the held connections died with the process: nothing to answer there

    const second = await startServe(env);
    processes.push(second);
    await waitFor(() => tally(sink, ids).missing.length === 0, `all ${BURST} messages to reach the sink`, { timeoutMs: 90_000, intervalMs: 100 });
    const everyJobDone = async () => (await jobCounts(ws.db)).done === BURST;
    await waitFor(everyJobDone, `all ${BURST} jobs to be done`, { timeoutMs: 30_000, intervalMs: 100 });
    assert.equal(await exitWithin(second.stop(), 40_000, 'the second serve'), 0);

    const { twice, missing, strangers } = tally(sink, ids);
    assert.deepEqual(missing, []);
    assert.deepEqual(strangers, [], 'nothing but the accepted messages arrived');
    assert.ok(twice <= atKill.leased, `${twice} arrived twice, more than the ${atKill.leased} in flight at the kill`);
    // A message whose DATA the sink had but whose reply the kill cut off was not finished: it is sent again.
    assert.ok(twice >= heldAtKill, `${heldAtKill} were cut off mid-reply, only ${twice} arrived twice`);
    assert.deepEqual(await jobCounts(ws.db), { pending: 0, done: BURST, leased: 0 });
    const takenOver = await ws.db.selectFrom('delivery_jobs').select('message_id').where('attempts', '>', 1).execute();

    report(
      t,
      `${BURST} accepted, ${sink.arrivals.size} arrived (${sink.received()} arrivals), ${twice} twice; ` +
        `${atKill.leased} in flight at the kill (${arrivedAtKill} had arrived, ${heldAtKill} cut off mid-reply), ${takenOver.length} jobs claimed twice; ` +
        `accepting took ${accepted - started} ms, the whole run ${Date.now() - started} ms`,
    );
  });
});

describe('mailroom worker on SIGTERM with a hand-over in flight', () => {
  let store: FreshStore;
  let ws: SmtpWorkspace;
  let sink: HeldSink;
  const workers: WorkerProcess[] = [];

  before(async () => {
    store = await migratedStore();
    ws = await smtpWorkspace(store.env, 'sigterm.example');
    sink = await startHeldSink({ holdFrom: 0 }); // every reply held until the test releases it
  });
  after(() => tearDownRig({ sink, children: workers.map((w) => w.child), ws, store }));

  it('stops claiming, finishes the message in flight, gives nothing back leased, and exits 0', { timeout: 60_000 }, async (t) => {
    const env = smtpEnv(store, sink);
    // Accepted with no worker running, so nothing leaves before the worker below starts.
    const api = await startServe({ ...env, WORKER_ENABLED: 'false' });
    let ids: string[];
    try {
      ids = await acceptSends(api.base, ws, 3);
    } finally {
      assert.equal(await exitWithin(api.stop(), 10_000, 'the API'), 0);
    }

    // One hand-over at a time: the first message reaches the sink, whose reply is held.
    const worker = await startWorkerProcess({ ...env, WORKER_CONCURRENCY: '1', WORKER_POLL_MS: '50' });
    workers.push(worker);
    await waitFor(() => sink.held() === 1, 'the first message to be in the sink, its reply held', { timeoutMs: 15_000 });
    const [handing] = [...sink.arrivals.keys()];
    const held = await ws.db.selectFrom('delivery_jobs').selectAll().where('lease_owner', '=', worker.owner).execute();
    const job = held.find((j) => j.message_id === handing);
    assert.ok(job, 'the message in the sink is a job the worker holds');
    // It may hold more than the one at the sink (claimed ahead for the next free slot).
    const heldAtTerm = held.length;

    worker.child.kill('SIGTERM');
    // The worker logs `shutting down` in its signal listener, just before it stops claiming and starting
    // jobs (synchronously): only then may the held reply go, or the freed slot could start another job.
    await waitFor(() => worker.output().includes('"msg":"shutting down"'), 'the worker to log that it is shutting down', { timeoutMs: 5_000, intervalMs: 5 });
    assert.equal(worker.child.exitCode, null, 'still running: the hand-over is in flight');
    sink.release();
    assert.equal(await exitWithin(worker.exited, 15_000, 'the worker'), 0);

    // The message in flight was finished: relayed once, its job done, its attempt on record.
    assert.deepEqual([...sink.arrivals], [[job.message_id, 1]], 'nothing else was handed over after SIGTERM');
    const jobs = await ws.db.selectFrom('delivery_jobs').selectAll().execute();
    const finished = jobs.find((j) => j.message_id === job.message_id)!;
    assert.deepEqual([finished.state, finished.lease_owner], ['done', null]);
    const attempts = await ws.db.selectFrom('delivery_attempts').selectAll().execute();
    assert.deepEqual(attempts.map((a) => [a.message_id, a.outcome, a.provider]), [[job.message_id, 'accepted', 'smtp']]);
    const entry = await ws.db.selectFrom('log_entries').selectAll().where('message_id', '=', job.message_id).executeTakeFirstOrThrow();
    assert.equal(entry.status, 'sent', 'accepted by the relay; its delivery report comes later');
    // Nothing is left leased: what it held besides the finished job it gave back.
    const others = jobs.filter((j) => j.message_id !== job.message_id);
    assert.deepEqual(others.map((j) => [j.state, j.lease_owner]), [['pending', null], ['pending', null]]);
    const stopped = /"released":(\d+),"msg":"delivery worker stopped"/.exec(worker.output());
    assert.equal(Number(stopped?.[1]), heldAtTerm - 1, worker.output());

    // And the rest are there for the next worker.
    const next = await startWorkerProcess({ ...env, WORKER_POLL_MS: '50' });
    workers.push(next);
    await waitFor(async () => (await jobCounts(ws.db)).done === 3, 'the next worker to deliver the other two', { timeoutMs: 15_000 });
    assert.equal(await exitWithin(next.stop(), 15_000, 'the next worker'), 0);
    assert.deepEqual(tally(sink, ids), { twice: 0, missing: [], strangers: [] });
    report(t, `SIGTERM with 1 hand-over in flight and ${heldAtTerm} jobs held: the hand-over finished (job done, relayed once), ${heldAtTerm - 1} given back, exit 0`);
  });
});
