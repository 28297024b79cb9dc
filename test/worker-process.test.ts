import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { acceptSends, ensureGone, exitWithin, jobCounts, smtpWorkspace, startHeldSink, tally, type HeldSink, type SmtpWorkspace } from './helpers/delivery-rig.js';
import { niceOf, processGone as isGone, workerProcessOf } from './helpers/npm-start.js';
import { startServe, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

// `mailroom serve` runs its delivery worker as a process of its own (src/worker-process/): real processes,
// relaying to a loopback SMTP sink, on the store this run exercises.
const METRICS_TOKEN = 'worker-process-test-token';

/** serve's worker process once it is up (its worker started), other than `not`. */
const workerOf = (serve: ServeProcess, not?: number) => workerProcessOf(serve.child.pid!, serve.output(), not);

describe("serve's worker process", () => {
  let store: FreshStore;
  let ws: SmtpWorkspace;
  let sink: HeldSink;
  const serves: ServeProcess[] = [];
  let env: Record<string, string>;

  before(async () => {
    store = await freshStore();
    ws = await smtpWorkspace(store.env, 'worker-process.example');
    sink = await startHeldSink({ holdFrom: 1_000_000 }); // answers everything at once
    env = {
      ...store.env,
      MAILROOM_PROVIDER: 'smtp',
      SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      RATE_LIMIT_SEND_PER_MIN: '1000000',
      RATE_LIMIT_OTHER_PER_MIN: '1000000',
      // A poll far beyond the test's waits: what is delivered promptly was woken by serve's message.
      WORKER_POLL_MS: '600000',
      WORKER_NICE: '7',
      METRICS_TOKEN,
    };
  });
  after(async () => {
    for (const serve of serves) await ensureGone(serve.child);
    await sink?.close();
    await ws?.db.destroy();
    await store?.drop();
  });

  it('delivers what serve accepts at once (woken over its channel, not by a poll), at WORKER_NICE, and serve reports its counts', { timeout: 60_000 }, async () => {
    const serve = await startServe(env);
    serves.push(serve);
    const workerPid = await waitFor(() => workerOf(serve), 'serve to start its worker process');
    assert.equal(niceOf(workerPid), 7);

    const ids = await acceptSends(serve.base, ws, 20, { tag: 'woken' });
    await waitFor(() => tally(sink, ids).missing.length === 0, 'the 20 sends to reach the sink', { timeoutMs: 20_000 });

    const metrics = await waitFor(async () => {
      const text = await (await fetch(`${serve.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      // A relay's 250 is `accepted` (the upstream reports the delivery later).
      return /^mailroom_delivery_outcomes_total\{provider="smtp",outcome="accepted"\} 20$/m.test(text) ? text : undefined;
    }, "serve's /metrics to count the worker process's 20 deliveries");
    // serve's own figures are there too, once: the HTTP histogram and its event loop.
    assert.match(metrics, /^mailroom_sends_total\{way="http",status="sent"\} 20$/m);
    assert.equal(metrics.match(/^nodejs_eventloop_lag_p99_seconds /gm)?.length, 1);
    assert.equal(await exitWithin(serve.stop(), 20_000, 'serve'), 0);
    await waitFor(() => isGone(workerPid), 'the worker process to end with serve');
  });

  it('starts the worker process again when it dies, and nothing accepted meanwhile is lost', { timeout: 60_000 }, async () => {
    const serve = await startServe(env);
    serves.push(serve);
    const first = await waitFor(() => workerOf(serve), 'serve to start its worker process');
    process.kill(first, 'SIGKILL');
    const ids = await acceptSends(serve.base, ws, 20, { tag: 'restarted' });

    await waitFor(() => serve.output().includes('"msg":"the delivery worker process exited; starting it again"'), 'serve to see its worker process die');
    const second = await waitFor(() => workerOf(serve, first), 'a new worker process');
    assert.notEqual(second, first);
    assert.equal(niceOf(second), 7);
    // Accepted while no worker ran: the new one finds them due at its start.
    await waitFor(() => tally(sink, ids).missing.length === 0, 'the 20 sends to reach the sink', { timeoutMs: 30_000 });
    assert.equal(await exitWithin(serve.stop(), 20_000, 'serve'), 0);
  });

  it('is killed when it does not stop within its share of SHUTDOWN_GRACE_MS, and serve still stops in time, with 0', { timeout: 60_000 }, async () => {
    const serve = await startServe({ ...env, SHUTDOWN_GRACE_MS: '2000' });
    serves.push(serve);
    const workerPid = await waitFor(() => workerOf(serve), 'serve to start its worker process');
    // Stopped, it cannot act on serve's SIGTERM: only the kill past 90 % of the grace ends it.
    process.kill(workerPid, 'SIGSTOP');
    const stopping = Date.now();
    assert.equal(await exitWithin(serve.stop(), 10_000, 'serve'), 0);
    const tookMs = Date.now() - stopping;
    assert.ok(tookMs >= 1_800 && tookMs < 2_000 + 500, `serve stopped in ${tookMs} ms`);
    assert.match(serve.output(), /"afterMs":1800,"msg":"the worker process did not stop in time; killing it/);
    await waitFor(() => isGone(workerPid), 'the killed worker process to be gone');
  });

  it('stops cleanly on its own when serve is killed: gives its jobs back and ends', { timeout: 60_000 }, async () => {
    const serve = await startServe(env);
    serves.push(serve);
    const workerPid = await waitFor(() => workerOf(serve), 'serve to start its worker process');
    serve.child.kill('SIGKILL');
    assert.equal(await exitWithin(serve.stop(), 10_000, 'the killed serve'), null);
    // Its output still reaches the pipe serve shared with it.
    await waitFor(() => serve.output().includes('"msg":"serve, which started this worker process, is gone: stopping"'), 'the worker process to notice');
    await waitFor(() => serve.output().includes('"msg":"delivery worker stopped"'), 'the worker process to stop its worker');
    await waitFor(() => isGone(workerPid), 'the worker process to end');
    assert.equal((await jobCounts(ws.db)).leased, 0, 'no job is left leased');
  });
});
