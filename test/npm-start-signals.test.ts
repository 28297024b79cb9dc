import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ensureGone, exitWithin, jobCounts, smtpWorkspace, startHeldSink, tally, type HeldSink, type SmtpWorkspace } from './helpers/delivery-rig.js';
import { niceOf, npmStart, type NpmStart } from './helpers/npm-start.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const GRACE_MS = 4_000;
/** The sink answers this many messages, then holds its replies: the signal lands with deliveries mid-hand-over. */
const HOLD_FROM = 20;
const LANES = 8;

/**
 * Sends through the API on LANES concurrent lanes until `stopped()` is said and
 * a send is refused (503 while closing, or no connection any more). A refusal
 * before that fails the test. Adds the ids of the sends answered 200 to `accepted`.
 */
function burst(mr: NpmStart, ws: SmtpWorkspace, stopped: () => boolean, accepted: string[]): Promise<void[]> {
  const lane = async (laneNo: number) => {
    for (let n = 0; ; n++) {
      let res: Response;
      try {
        res = await fetch(`${mr.base}/v1/send`, {
          method: 'POST',
          headers: { 'x-api-key': ws.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ from_email: ws.from, to: [`l${laneNo}n${n}@example.net`], subject: `Lane ${laneNo} #${n}`, text: 'Hello' }),
        });
      } catch (error) {
        if (stopped()) return;
        throw error;
      }
      const body = (await res.json().catch(() => null)) as { data?: { message_id: string } } | null;
      if (res.status === 200 && body?.data) {
        accepted.push(body.data.message_id);
        continue;
      }
      assert.ok(stopped(), `a send answered ${res.status} before the signal: ${JSON.stringify(body)}`);
      assert.equal(res.status, 503);
      return;
    }
  };
  return Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));
}

/** Every id has its message and its delivery job in the store; none of the jobs is left leased. */
async function assertStoredAndUnleased(ws: SmtpWorkspace, ids: string[], log: string): Promise<void> {
  const messages = await ws.db.selectFrom('messages').select('id').execute();
  const stored = new Set(messages.map((m) => m.id));
  assert.deepEqual(ids.filter((id) => !stored.has(id)), [], 'every message answered 200 is in the store');
  const jobs = await ws.db.selectFrom('delivery_jobs').select(['message_id']).execute();
  const withJob = new Set(jobs.map((j) => j.message_id));
  assert.deepEqual(ids.filter((id) => !withJob.has(id)), [], 'every message answered 200 has its delivery job');
  assert.equal((await jobCounts(ws.db)).leased, 0, `no job is left leased; the log:\n${log}`);
}

// `npm start` exactly as the README runs it, on the store of this run, relaying to a loopback SMTP sink.
describe('npm start on SIGTERM and SIGINT', () => {
  let store: FreshStore;
  let ws: SmtpWorkspace;
  let sink: HeldSink;
  let env: Record<string, string>;
  const started: NpmStart[] = [];
  const accepted: string[] = [];

  before(async () => {
    store = await freshStore();
    ws = await smtpWorkspace(store.env, 'signals.example');
    sink = await startHeldSink({ holdFrom: HOLD_FROM });
    env = {
      ...store.env,
      MAILROOM_PROVIDER: 'smtp',
      SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      RATE_LIMIT_SEND_PER_MIN: '1000000',
      // Long: what the next start finds unleased was given back at the stop, not left to run out.
      WORKER_LEASE_MS: '600000',
      WORKER_POLL_MS: '100',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    };
  });
  after(async () => {
    sink?.release();
    for (const mr of started) {
      mr.kill();
      await ensureGone(mr.npm);
    }
    await sink?.close();
    await ws?.db.destroy();
    await store?.drop();
  });

  it('SIGTERM to Mailroom mid-burst, deliveries held mid-hand-over: npm exits 0 within SHUTDOWN_GRACE_MS, nothing is left running, every accepted send is stored and given back', { timeout: 60_000 }, async () => {
    const mr = await npmStart(env);
    started.push(mr);
    // `npm start` execs Node in place of the shell: npm and Mailroom's own process, nothing else.
    const deliveryThread = await waitFor(() => mr.deliveryThread(), 'serve to start its delivery thread');
    assert.deepEqual(mr.groupLeft().sort(), [mr.npm.pid!, mr.mailroomPid].sort());
    assert.match(readFileSync(`/proc/${mr.mailroomPid}/cmdline`, 'utf8').replaceAll('\0', ' '), /bin\/mailroom\.js serve $/);
    // WORKER_NICE's default on the delivery thread alone: accepting sends comes first.
    assert.equal(niceOf(mr.mailroomPid, deliveryThread), 10);
    assert.equal(niceOf(mr.mailroomPid), 0);

    let signalled = false;
    const sending = burst(mr, ws, () => signalled, accepted);
    await waitFor(() => sink.held() > 0 && accepted.length >= 100, 'sends to be accepted and deliveries to be held mid-hand-over', { timeoutMs: 30_000 });
    signalled = true;
    const signalledAt = Date.now();
    process.kill(mr.mailroomPid, 'SIGTERM');
    await sending;

    assert.equal(await exitWithin(mr.exited, GRACE_MS + 5_000, 'npm start'), 0, mr.output());
    const tookMs = Date.now() - signalledAt;
    assert.ok(tookMs < GRACE_MS + 1_000, `stopped in ${tookMs} ms`);
    assert.deepEqual(mr.groupLeft(), [], 'no process of the group remains');
    // The held hand-overs waited three quarters of the grace, then went back as due.
    // (npm's exit may be seen before the last lines its pipe holds are read: wait for them.)
    await waitFor(() => /"msg":"delivery worker stopped"/.test(mr.output()), 'the delivery thread to log its stop', { timeoutMs: 5_000 }).catch(() => undefined);
    assert.match(mr.output(), /"msg":"hand-overs still in flight at shutdown; giving their jobs back"/);
    assert.match(mr.output(), /"msg":"delivery worker stopped"/);
    await assertStoredAndUnleased(ws, accepted, mr.output());
  });

  it('started again, delivers every accepted send; SIGTERM to npm itself is forwarded, and npm waits and exits 0', { timeout: 90_000 }, async () => {
    sink.release();
    const mr = await npmStart(env);
    started.push(mr);
    await waitFor(() => tally(sink, accepted).missing.length === 0, `all ${accepted.length} accepted messages to reach the sink`, { timeoutMs: 60_000, intervalMs: 100 });
    await waitFor(async () => (await jobCounts(ws.db)).pending === 0, 'every job to be done', { timeoutMs: 30_000, intervalMs: 100 });
    assert.deepEqual(tally(sink, accepted).strangers, []);

    mr.npm.kill('SIGTERM');
    assert.equal(await exitWithin(mr.exited, GRACE_MS + 5_000, 'npm start'), 0, mr.output());
    assert.match(mr.output(), /"signal":"SIGTERM"[^\n]*"msg":"shutting down"/);
    assert.deepEqual(mr.groupLeft(), [], 'no process of the group remains');
  });

  it('SIGINT to the process group, as Ctrl-C in a terminal (npm forwards its own too): one clean stop, exit 0, nothing left, every accepted send stored', { timeout: 60_000 }, async () => {
    const mr = await npmStart(env);
    started.push(mr);
    // Mid-burst, not mid-start: the delivery thread is up and delivering.
    await waitFor(() => mr.deliveryThread(), 'serve to start its delivery thread');
    const before = accepted.length;
    let signalled = false;
    const sending = burst(mr, ws, () => signalled, accepted);
    await waitFor(() => accepted.length >= before + 50, 'sends to be accepted', { timeoutMs: 30_000 });
    signalled = true;
    process.kill(-mr.npm.pid!, 'SIGINT');
    await sending;

    assert.equal(await exitWithin(mr.exited, GRACE_MS + 5_000, 'npm start'), 0, mr.output());
    // Once: serve had the terminal's SIGINT and npm's forwarded one; its delivery thread stopped with it, once.
    // (npm's exit may be seen before the last lines its pipe holds are read: wait for them.)
    const stopsOf = () => [...mr.output().matchAll(/"pid":(\d+)[^\n]*"msg":"shutting down"/g)].map((m) => Number(m[1]));
    const workerStops = () => mr.output().match(/"msg":"delivery worker stopped"/g)?.length ?? 0;
    await waitFor(() => stopsOf().length >= 1 && workerStops() >= 1, 'serve and its delivery thread to log their stop', { timeoutMs: 5_000 }).catch(() => undefined);
    assert.deepEqual(stopsOf(), [mr.mailroomPid], 'serve stopped once, the second signal changed nothing');
    // With what serve logged, so a failure says whether the thread was ended at its grace or its last line lost.
    assert.equal(workerStops(), 1, `its delivery worker stopped once; the log's end:\n${mr.output().slice(-4000)}`);
    assert.deepEqual(mr.groupLeft(), [], 'no process of the group remains');
    await assertStoredAndUnleased(ws, accepted, mr.output());
  });
});
