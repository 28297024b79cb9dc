import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { createDeliveryWorker } from '../src/delivery/delivery-worker.js';
import type { Provider } from '../src/delivery/provider.js';
import { createProvider } from '../src/delivery/providers.js';
import { createLogger } from '../src/observability/log-format.js';
import { watchApiLoad } from '../src/composition/api-load.js';
import { startDeliveryThread } from '../src/composition/delivery-thread-supervisor.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';

// Under a burst the API comes first: serve reads how busy its HTTP thread is (api-load.ts), tells its
// delivery thread, and the worker delivers at a trickle until the burst is over, then at full speed.

/** Keeps the calling thread's event loop working, in slices, until `until` says stop (or fails after `timeoutMs`). */
async function keepLoopBusy(until: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!until()) {
    if (performance.now() > deadline) throw new Error(`the condition did not hold after ${timeoutMs} ms of a busy event loop`);
    const end = performance.now() + 20;
    while (performance.now() < end) {
      // working, as a thread answering a burst of requests does
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the API load serve reads', () => {
  it('turns busy while the event loop works flat out, and calm again once it idles; it reports changes, not samples', { timeout: 30_000 }, async () => {
    const changes: boolean[] = [];
    const load = watchApiLoad((busy) => changes.push(busy), 25);
    try {
      // Loading this test's modules may have kept the loop busy at first: from calm on.
      await waitFor(() => !load.busy(), 'an idle loop to read as calm');
      const from = changes.length;
      await keepLoopBusy(() => changes.length === from + 1);
      assert.deepEqual([changes.slice(from), load.busy()], [[true], true]);
      await waitFor(() => changes.length === from + 2, 'the idle loop to read as calm again');
      assert.deepEqual([changes.slice(from), load.busy()], [[true, false], false]);
    } finally {
      load.stop();
    }
  });

  it("is what the supervisor tells the delivery thread, each change once", { timeout: 30_000 }, async () => {
    const config = loadConfig({ MAILROOM_DATA_DIR: '/nonexistent' });
    const lines: string[] = [];
    const log = createLogger(config, {}, new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) }));
    const thread = startDeliveryThread({ config, log, entry: new URL('./fixtures/threads/listening-delivery-thread.ts', import.meta.url) });
    const heard = async () => (await thread.metrics()).find((m) => m.name === 'api_busy_heard')?.values.map((v) => v.value === 1) ?? [];
    try {
      await waitFor(() => lines.some((line) => line.includes('"msg":"delivery thread started"')), 'the thread to start');
      // Starting may have kept the loop busy, and the thread heard so: from its calm on.
      const settled = async () => {
        const h = await heard();
        return h.at(-1) === true ? undefined : { length: h.length };
      };
      const { length: from } = await waitFor(settled, 'the thread to hear nothing yet, or the calm');
      let told: boolean[] = [];
      let asking = false;
      await keepLoopBusy(() => {
        if (!asking) {
          asking = true;
          void heard().then((h) => ((told = h.slice(from)), (asking = false)));
        }
        return told.length > 0;
      });
      assert.deepEqual(told, [true]);
      await waitFor(async () => (told = (await heard()).slice(from)).length === 2, 'the thread to hear of the calm');
      assert.deepEqual(told, [true, false]);
    } finally {
      await thread.stop();
    }
  });
});

describe('the delivery worker while the API is busy', () => {
  let t: TestApp;
  const SENDS = 24;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000', WORKER_POLL_MS: '20', WORKER_CONCURRENCY: '8' });
  });
  after(() => t.close());

  it('delivers at a trickle (a quarter of WORKER_CONCURRENCY, a claim per 250 ms at most) and at full concurrency once calm, losing nothing', { timeout: 60_000 }, async () => {
    const ids: string[] = [];
    for (let i = 0; i < SENDS; i++) ids.push((await t.call('POST', '/v1/send', { body: sendBody({ to: [`r${i}@example.com`] }) })).json().data.message_id);

    // The sandbox provider behind a gate: each hand-over waits until the test lets it through.
    const sandbox = createProvider(t.config, t.store);
    const held: (() => void)[] = [];
    let atProvider = 0;
    let mostAtProvider = 0;
    const gated: Provider = {
      name: sandbox.name,
      async send(message) {
        atProvider++;
        mostAtProvider = Math.max(mostAtProvider, atProvider);
        await new Promise<void>((resolve) => held.push(resolve));
        atProvider--;
        return sandbox.send(message);
      },
      close: () => sandbox.close(),
    };
    const silent = { info() {}, warn() {}, error() {} };
    const worker = createDeliveryWorker({ store: t.store, router: gated, config: t.config, logger: silent, returnPaths: t.returnPaths });
    worker.yieldToApi(true);
    worker.start();
    try {
      // Busy: two at the provider at most (8 / 4); each let through makes room for one more, claimed no
      // sooner than 250 ms after the last claim, so ten hand-overs take at least four more claims' time.
      const started = performance.now();
      for (let done = 0; done < 10; done++) {
        await waitFor(() => held.length > 0, 'a hand-over to reach the provider');
        held.shift()!();
      }
      const elapsed = performance.now() - started;
      assert.equal(mostAtProvider, 2, 'a quarter of WORKER_CONCURRENCY at the provider while the API is busy');
      assert.ok(elapsed >= 1000, `ten hand-overs at two per claim and a claim per 250 ms took ${elapsed.toFixed(0)} ms`);

      // Calm: the worker fills its eight slots at once.
      worker.yieldToApi(false);
      await waitFor(() => atProvider === 8, 'all eight slots in use once the API is calm', { timeoutMs: 10_000 });
      assert.equal(mostAtProvider, 8);
      await waitFor(() => {
        while (held.length > 0) held.shift()!();
        return Promise.all(ids.map((id) => t.store.messages.findJobByMessage(id))).then((jobs) => jobs.every((job) => job?.state === 'done'));
      }, 'every accepted send delivered');
      for (const [i, id] of ids.entries()) assert.equal((await t.store.logs.findSendEntry(id, `r${i}@example.com`))?.status, 'delivered');
    } finally {
      while (held.length > 0) held.shift()!();
      await worker.stop();
    }
  });
});
