/**
 * The composition root: what builds the store over a database, the services
 * over the store, and each process's runtime (serve's API, `mailroom
 * worker`, the delivery thread). It imports the capabilities; none imports it
 * but the entry points, the CLI's commands and the threads that need a store
 * of their own.
 */
export { createStore } from './store.js';
export { createServices, type ServiceOptions, type Services } from './services.js';
export { createLogger, openMigratedDatabase, openReachableDatabase, openSigningKeys, storeExists, withSecretKey } from './store-runtime.js';
export { startDeliveryWorker, startWebhookDispatcher, startWorker, workerStoreOptions, WEBHOOK_POLL_MS, type RunningWorker, type WorkerRuntimeOptions } from './worker-runtime.js';
export { backupReport, backupStore } from './backup.js';
export { rotateSecrets, rotationReport } from './rotate-secrets.js';
export { startDeliveryThread, type DeliveryThread } from './delivery-thread-supervisor.js';
