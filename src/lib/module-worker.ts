import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running one of Mailroom's own modules, named as compiled:
 * `new URL('./x-thread.js', import.meta.url)`. In the build `npm start` runs
 * (dist/bundle/, where scripts/bundle-server.ts writes every thread's module
 * beside cli.js) that file is there and the thread loads it as is.
 * Run from the TypeScript sources (the tests, through tsx), this file is a .ts
 * too: the thread loads the .ts beside the named file, and registers tsx
 * first, since a worker does not inherit its parent's module loader. Only
 * then is tsx looked up, so the compiled build never needs it.
 * `options`: the thread's resource limits, if any.
 */
export function startModuleThread(entry: URL, workerData: unknown, options: Pick<WorkerOptions, 'resourceLimits'> = {}): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(entry, { ...options, workerData });
  const source = new URL(entry.href.replace(/\.js$/, '.ts'));
  const bootstrap = `
    import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};
    register();
    await import(${JSON.stringify(source.href)});
  `;
  return new Worker(bootstrap, { ...options, eval: true, workerData });
}
