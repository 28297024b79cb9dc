import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/observability/log-format.js';
import { startDeliveryThread } from '../src/composition/delivery-thread-supervisor.js';
import { acceptSends, exitWithin, relayEnv, smtpWorkspace, startHeldSink, tally, tearDownRig, type HeldSink, type SmtpWorkspace } from './helpers/delivery-rig.js';
import { childrenOf, deliveryThreadOf, niceOf, threadsOf } from './helpers/npm-start.js';
import { startServe, type ServeProcess } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

// `mailroom serve` runs its delivery worker on a thread of its own (src/composition/delivery-thread.ts): a real process,
// relaying to a loopback SMTP sink, on the store this run exercises; and the thread's supervisor over
// stand-in threads that die or hang, which the real one does only when something is badly wrong.
const METRICS_TOKEN = 'delivery-thread-test-token';

describe("serve's delivery thread", () => {
  let store: FreshStore;
  let ws: SmtpWorkspace;
  let sink: HeldSink;
  const serves: ServeProcess[] = [];
  let env: Record<string, string>;

  before(async () => {
    store = await freshStore();
    ws = await smtpWorkspace(store.env, 'delivery-thread.example');
    sink = await startHeldSink({ holdFrom: 1_000_000 }); // answers everything at once
    env = {
      ...relayEnv(store, sink),
      RATE_LIMIT_OTHER_PER_MIN: '1000000',
      // A poll far beyond the test's waits: what is delivered promptly was woken by serve's message.
      WORKER_POLL_MS: '600000',
      WORKER_NICE: '7',
      METRICS_TOKEN,
    };
  });
  after(() => tearDownRig({ sink, children: serves.map((serve) => serve.child), ws, store }));

  it('delivers what serve accepts at once (woken, not by a poll) on threads at WORKER_NICE, the API at 0, in one process; serve reports its counts', { timeout: 60_000 }, async () => {
    const serve = await startServe(env);
    serves.push(serve);
    const pid = serve.child.pid!;
    const tid = await waitFor(() => deliveryThreadOf(pid, serve.output()), 'serve to start its delivery thread');
    assert.notEqual(tid, pid, 'a thread of its own');
    assert.equal(niceOf(pid, tid), 7);

    const ids = await acceptSends(serve.base, ws, 20, { tag: 'woken' });
    await waitFor(() => tally(sink, ids).missing.length === 0, 'the 20 sends to reach the sink', { timeoutMs: 20_000 });
    assert.deepEqual(childrenOf(pid), [], 'no process beside serve');
    // The thread answering HTTP keeps the API's priority; the delivery thread and the message builder thread it
    // started (threads inherit their creator's nice value) run at WORKER_NICE.
    assert.equal(niceOf(pid, pid), 0);
    const niced = threadsOf(pid).filter((thread) => niceOf(pid, thread) === 7);
    assert.ok(niced.includes(tid) && niced.length >= 2, `threads at nice 7: ${niced.join(', ')} (the delivery thread ${tid} and its builder)`);

    /** The first scrape of serve's /metrics that matches `pattern`. */
    const scrapeMatching = (pattern: RegExp, what: string) =>
      waitFor(async () => {
        const text = await (await fetch(`${serve.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
        return pattern.test(text) ? text : undefined;
      }, what);
    // A relay's 250 is `accepted` (the upstream reports the delivery later).
    const metrics = await scrapeMatching(/^mailroom_delivery_outcomes_total\{provider="smtp",outcome="accepted"\} 20$/m, "serve's /metrics to count the delivery thread's 20 deliveries");
    // serve's own figures are there too, once: the HTTP histogram and its event loop.
    assert.match(metrics, /^mailroom_sends_total\{way="http",status="sent"\} 20$/m);
    assert.equal(metrics.match(/^nodejs_eventloop_lag_p99_seconds /gm)?.length, 1);
    // The store-wide gauges, read from the built read thread on SQLite (db/sqlite-reader.ts). Waited for: a
    // scrape reads them before it asks the delivery thread for its counts, so the scrape above may have
    // counted the last jobs still to do.
    const gauges = await scrapeMatching(/^mailroom_delivery_queue_jobs 0$/m, 'the queue gauge to read the 20 jobs done');
    assert.match(gauges, /^mailroom_store_up 1$/m);
    assert.equal(await exitWithin(serve.stop(), 20_000, 'serve'), 0);
    assert.match(serve.output(), /"msg":"delivery worker stopped"/);
  });
});

describe("the delivery thread's supervisor", () => {
  /** A supervisor over `fixture`, logging into `lines`. */
  function supervise(fixture: string, lines: string[], shutdownGraceMs = 10_000) {
    const config = loadConfig({ MAILROOM_DATA_DIR: '/nonexistent', SHUTDOWN_GRACE_MS: String(shutdownGraceMs) });
    const log = createLogger(config, {}, new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) }));
    return startDeliveryThread({ config, log, entry: new URL(`./fixtures/threads/${fixture}`, import.meta.url) });
  }
  const count = (lines: string[], message: string) => lines.filter((line) => line.includes(`"msg":"${message}"`)).length;

  it('starts a thread that died again, after a pause, and wakes reach the new one', { timeout: 30_000 }, async () => {
    const lines: string[] = [];
    const thread = supervise('dying-delivery-thread.ts', lines);
    try {
      await waitFor(() => count(lines, 'delivery thread started') === 1, 'the first thread to start');
      thread.wake(); // its bug
      await waitFor(() => count(lines, 'the delivery thread exited; starting it again') === 1, 'the supervisor to see it die');
      assert.match(lines.join(''), /"err":\{[^\n]*"message":"a bug in the delivery thread"[^\n]*"msg":"the delivery thread failed"/);
      assert.match(lines.join(''), /"code":1,"restartInMs":500,/);
      await waitFor(() => count(lines, 'delivery thread started') === 2, 'a second thread');
      thread.wake(); // the second dies the same way: the next pause is twice as long
      await waitFor(() => lines.join('').includes('"restartInMs":1000,'), 'the second death, with a longer pause');
      await waitFor(() => count(lines, 'delivery thread started') === 3, 'a third thread');
    } finally {
      await thread.stop();
    }
    const startedBeforeStop = count(lines, 'delivery thread started');
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal(count(lines, 'delivery thread started'), startedBeforeStop, 'no restart after a stop');
  });

  it('ends a thread that does not stop within its share of SHUTDOWN_GRACE_MS, so serve still ends in time', { timeout: 30_000 }, async () => {
    const lines: string[] = [];
    const thread = supervise('stuck-delivery-thread.ts', lines, 2_000);
    // Stopped in `finally` too (the same stop), and the wait shorter than the test's timeout: a supervisor and
    // its thread left running after a failed wait would keep the test process alive forever.
    try {
      await waitFor(() => count(lines, 'delivery thread started') === 1, 'the thread to start', { timeoutMs: 10_000 });
      const stopping = Date.now();
      await thread.stop();
      const tookMs = Date.now() - stopping;
      assert.ok(tookMs >= 1_800 && tookMs < 2_000 + 500, `stopped in ${tookMs} ms`);
      assert.match(lines.join(''), /"afterMs":1800,"msg":"the delivery thread did not stop in time; ending it/);
      assert.equal(count(lines, 'the delivery thread exited; starting it again'), 0);
    } finally {
      await thread.stop();
    }
  });
});
