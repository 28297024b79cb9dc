import type { Logger } from 'pino';
import type { Metrics } from '../observability/index.js';
import type { FromWorker, ToWorker } from './worker-messages.js';
import { SUPERVISED_ENV } from './worker-messages.js';

/** True in the worker process `serve` started (worker-supervisor.ts), which has an IPC channel to it. */
export function isSupervisedWorker(): boolean {
  return process.env[SUPERVISED_ENV] === '1' && typeof process.send === 'function';
}

/**
 * The worker process's side of the channel to `serve`: wakes the delivery
 * worker when a send was accepted, answers the counts it keeps, and stops the
 * worker when the channel closes (`serve` is gone, however it ended: a kill
 * -9 sends no signal here).
 */
export function listenToSupervisor(worker: { wake(): void }, metrics: Metrics, stop: () => void, log: Logger): void {
  process.on('message', (message: ToWorker) => {
    if (message.type === 'wake') worker.wake();
    else if (message.type === 'metrics') {
      void metrics.workerCounts().then((counts) => {
        const reply: FromWorker = { type: 'metrics', id: message.id, metrics: counts };
        process.send?.(reply);
      });
    }
  });
  const orphaned = () => {
    log.warn('serve, which started this worker process, is gone: stopping');
    stop();
  };
  if (!process.connected) orphaned();
  else process.once('disconnect', orphaned);
}
