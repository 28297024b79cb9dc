/**
 * Entry of `serve`'s delivery thread (delivery-thread-supervisor.ts): the
 * delivery worker, the webhook dispatcher and the retention pruner, as
 * `mailroom worker` runs them, over a store connection of the thread's own,
 * at the OS priority WORKER_NICE. Its own module and bundle (the bundle holds
 * no HTTP layer): loaded by serve once it listens.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { startWorker } from './worker-runtime.js';
import { currentThreadId, lowerThreadPriority } from '../lib/thread-priority.js';
import type { DeliveryThreadData, FromWorker, ToWorker } from './delivery-thread-messages.js';

async function run(port: MessagePort, { config, nice }: DeliveryThreadData): Promise<void> {
  // Before the worker starts its message builder thread, which then inherits this thread's priority.
  let priority: { tid: number | undefined; nice: number | undefined; error?: unknown };
  try {
    priority = lowerThreadPriority(nice);
  } catch (error) {
    priority = { tid: currentThreadId(), nice: undefined, error };
  }
  const running = await startWorker(config, { insideServe: true });
  // Lowering a priority needs no privilege; should it fail anyway (serve itself niced below WORKER_NICE's
  // reach, say), the worker runs at the API's.
  if (priority.error) running.log.warn({ err: priority.error, nice }, 'could not lower the delivery thread priority (WORKER_NICE)');
  let stopping: Promise<void> | undefined;
  port.on('message', (message: ToWorker) => {
    if (message.type === 'wake') running.worker.wake();
    else if (message.type === 'api-busy') running.worker.yieldToApi(message.busy);
    else if (message.type === 'metrics') {
      void running.metrics.workerCounts().then((metrics) => port.postMessage({ type: 'metrics', id: message.id, metrics } satisfies FromWorker));
    } else if (message.type === 'stop') {
      // process.exit in a worker thread ends the thread alone, whatever timers or sockets the worker left.
      // Its log first (observability/log-format.ts: written to fd 1 by the thread itself).
      stopping ??= running
        .stop()
        .then(() => new Promise<void>((resolve) => running.log.flush(() => resolve())))
        .then(() => process.exit(0));
    }
  });
  port.postMessage({ type: 'started', tid: priority.tid, nice: priority.nice } satisfies FromWorker);
}

// A failed start is thrown out of the thread: serve sees it as the thread's error, logs it and starts it again.
if (parentPort) {
  run(parentPort, workerData as DeliveryThreadData).catch((error: unknown) => {
    process.nextTick(() => {
      throw error;
    });
  });
}
