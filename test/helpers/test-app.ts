import type { LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import type { Store } from '../../src/db/store.js';
import { openRuntime } from '../../src/server.js';
import type { Services } from '../../src/composition/services.js';
import type { DeliveryWorker } from '../../src/delivery/delivery-worker.js';
import type { ReturnPathSigner } from '../../src/inbound/return-path.js';
import type { StoreKind } from '../../src/db/database.js';
import type { SubmissionServer } from '../../src/submission/submission-server.js';
import { freePort } from './free-port.js';
import { freshStore } from './test-store.js';
import { checkResponsesAgainstOpenApi } from './openapi-drift.js';

export interface TestApp {
  app: App;
  config: Config;
  db: Db;
  store: Store;
  services: Services;
  /** The delivery worker, when the app was asked to run one. */
  worker: DeliveryWorker | undefined;
  /** Signs and checks return paths with the store's key, as the worker and the inbound receiver do. */
  returnPaths: ReturnPathSigner;
  /** The SMTP submission server, when the app was asked to run one (on SUBMISSION_PORT, 0 by default here: a free port). */
  submission: SubmissionServer | undefined;
  /** Environment naming this app's store: give it to another app (or process) to share the store. */
  storeEnv: Record<string, string>;
  workspaceId: string;
  apiKey: string;
  /** Calls the real app in-process; `key` defaults to the workspace's first key, `null` sends none. */
  call(method: string, url: string, options?: { key?: string | null; body?: unknown }): Promise<LightMyRequestResponse>;
  /** Another workspace with its own key. */
  newWorkspace(name?: string): Promise<{ workspaceId: string; apiKey: string }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Another app whose store this one uses (and leaves in place when closed); by default a fresh one. */
  shareStoreWith?: TestApp;
  /** The kind of fresh store; by default the one this test run exercises. */
  store?: StoreKind;
  /** Run the delivery worker in the app's process, as `serve` does. */
  worker?: boolean;
  /** Run the webhook dispatcher in the app's process, as `serve` does. */
  webhooks?: boolean;
  /** Run the SMTP submission server, as `serve` does: on SUBMISSION_PORT when the env gives one, else on a free port. */
  submission?: boolean;
  /** Hooks every route should run, added before the first route (buildApp's beforeRoutes). */
  beforeRoutes?: (app: App) => void;
}

/** The real app on a fresh store of its own (SQLite in a temp dir, or a new PostgreSQL database). */
export async function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const fresh = options.shareStoreWith ? undefined : await freshStore(options.store);
  const storeEnv = options.shareStoreWith?.storeEnv ?? fresh!.env;
  const given = loadConfig({ ...storeEnv, LOG_LEVEL: 'silent', ...(options.submission ? { SUBMISSION_PORT: String(await freePort()) } : {}), ...env });
  const runtime = await openRuntime(given, { worker: options.worker ?? false, webhooks: options.webhooks ?? false, submission: options.submission ?? false });
  // With the installation's secret key, as the runtime opened it (MAILROOM_SECRET_KEY, or the data dir's key file).
  const { config, db, store, services } = runtime;
  const app = await buildApp({ config, services, beforeRoutes: options.beforeRoutes });
  // Every answer of a /v1 route is checked against the OpenAPI document: it cannot drift from what the API does.
  const drift = checkResponsesAgainstOpenApi(app);
  await app.ready();
  const first = await services.workspaces.create('Test workspace');
  let closed = false;

  return {
    app,
    config,
    db,
    store,
    services,
    worker: runtime.worker,
    returnPaths: runtime.returnPaths,
    submission: runtime.submission,
    storeEnv,
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
      if (closed) return;
      closed = true;
      await app.close();
      await runtime.close();
      await fresh?.drop();
      drift.assertNone();
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
  for (const table of ['messages', 'log_entries', 'log_entry_tags', 'log_counters', 'delivery_jobs', 'message_events', 'message_attachments'] as const) {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return counts;
}
