import { Worker } from 'node:worker_threads';

/**
 * A worker thread running a TypeScript entry. The service runs its TypeScript
 * through tsx, without a build step; a worker does not inherit the parent's
 * module loader, so it registers tsx itself before it loads its entry.
 */
export function startTypeScriptThread(entry: URL, workerData: unknown): Worker {
  const bootstrap = `
    import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};
    register();
    await import(${JSON.stringify(entry.href)});
  `;
  return new Worker(bootstrap, { eval: true, workerData });
}
