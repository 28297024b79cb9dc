import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import type { Store } from '../../src/repositories/index.js';
import { openRuntime } from '../../src/server.js';
import type { Services } from '../../src/services/index.js';

export interface TestApp {
  app: App;
  config: Config;
  db: Db;
  store: Store;
  services: Services;
  workspaceId: string;
  apiKey: string;
  /** Calls the real app in-process; `key` defaults to the workspace's first key, `null` sends none. */
  call(method: string, url: string, options?: { key?: string | null; body?: unknown }): Promise<LightMyRequestResponse>;
  /** Another workspace with its own key. */
  newWorkspace(name?: string): Promise<{ workspaceId: string; apiKey: string }>;
  close(): Promise<void>;
}

/** The real app on a fresh SQLite store in its own temporary directory. */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-test-'));
  const config = loadConfig({ MAILROOM_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
  const runtime = await openRuntime(config);
  const { db, store, services } = runtime;
  const app = await buildApp({ config, services });
  await app.ready();
  const first = await services.workspaces.create('Test workspace');

  return {
    app,
    config,
    db,
    store,
    services,
    workspaceId: first.workspace_id,
    apiKey: first.api_key,
    call(method, url, options = {}) {
      const key = options.key === undefined ? first.api_key : options.key;
      return app.inject({
        method: method as 'GET',
        url,
        headers: key === null ? {} : { 'x-api-key': key },
        ...(options.body !== undefined ? { payload: options.body as object } : {}),
      });
    },
    async newWorkspace(name = 'Other workspace') {
      const created = await services.workspaces.create(name);
      return { workspaceId: created.workspace_id, apiKey: created.api_key };
    },
    async close() {
      await app.close();
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A valid send body from the sandbox sender domain; override any field. */
export function sendBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    to: ['user@example.com'],
    from_email: 'Mailroom <hello@sandbox.mailroom.test>',
    subject: 'Hello',
    text: 'Hello there',
    ...overrides,
  };
}

/** Row counts of every table a send writes, to show a refused send wrote nothing. */
export async function writtenRows(db: Db): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['messages', 'log_entries', 'log_counters', 'delivery_jobs'] as const) {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return counts;
}
