import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { newId, nowIso } from '../src/lib/ids.js';
import { createStore } from '../src/composition/store.js';
import type { Store } from '../src/db/store.js';
import { generateDkimKeyPair } from '../src/domains/dkim-keys.js';
import { openMigratedDatabase } from '../src/composition/store-runtime.js';
import { createServices } from '../src/composition/services.js';
import { createBenchDatabase } from './bench-database.js';
import { children, removeOnExit, stopChild } from './bench-process.js';

/** The METRICS_TOKEN the send benchmarks start `serve` with: its /metrics gives them the queue and the event-loop delay. */
export const BENCH_METRICS_TOKEN = 'bench-metrics-token-0123456789';

/**
 * The send the send benchmarks post: one recipient; from the sandbox sender (always verified, so every
 * request is accepted as `sent`) unless `fromEmail` names another.
 */
export function oneRecipientSend(fromEmail = 'Bench <bench@sandbox.mailroom.test>') {
  return { to: ['user@example.com'], from_email: fromEmail, subject: 'Hello', text: 'Hi there' };
}

/** A domain of the workspace's, verified, with a DKIM key: a sender the SMTP provider relays for (signing each message). */
async function addVerifiedDomain(store: Store, workspaceId: string, domain: string): Promise<void> {
  const key = await generateDkimKeyPair();
  const now = nowIso();
  await store.domains.insert({
    id: newId('dom'), workspace_id: workspaceId, domain, status: 'verified', dkim_selector: key.selector, dkim_private_key: key.privateKeyPem,
    dkim_public_key: key.publicKeyBase64, return_path_domain: `mr-bounces.${domain}`, verification_error: null, created_at: now, verified_at: now, last_checked_at: now, upstream_ids: null, open_tracking: 0, click_tracking: 0, tracking_domain: null, tracking_domain_status: null,
  });
}

/** A store for the send benchmarks, the environment to start `mailroom serve` on it, and a key of its workspace. */
export interface SendBenchStore {
  env: Record<string, string>;
  apiKey: string;
  /** `PostgreSQL` or `SQLite (embedded default)`, for the report. */
  storeName: string;
  /** Where it lives, to print. */
  where: string;
  /** Drops the database or removes the data directory, and stops every child still running. */
  close(): Promise<void>;
}

/**
 * The setup bench:send and bench:batch share: a data directory of its own,
 * and a database of its own on DATABASE_URL's server when it is set; rate
 * limits far above what a benchmark reaches (they measure the send path, not
 * the 429 path); no inbound receiver. The log level is the default, `info`, as
 * `npm start` runs: every request writes its line (until 2026-11-28 these
 * benchmarks ran at `warn`, which left that cost out). The workspace is made
 * before any server starts, so the two never share the store in flight.
 */
export async function openSendBenchStore(extraEnv: Record<string, string> = {}, options: { smtpDomain?: string } = {}): Promise<SendBenchStore> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-bench-'));
  removeOnExit(dataDir);
  const postgres = process.env.DATABASE_URL ? await createBenchDatabase(process.env.DATABASE_URL) : undefined;
  const close = async () => {
    await postgres?.drop();
    for (const child of [...children]) await stopChild(child);
    await rm(dataDir, { recursive: true, force: true });
    removeOnExit(undefined);
  };
  try {
    const env = {
      MAILROOM_DATA_DIR: dataDir,
      ...(postgres ? { DATABASE_URL: postgres.url } : {}),
      RATE_LIMIT_SEND_PER_MIN: '100000000',
      RATE_LIMIT_OTHER_PER_MIN: '100000000',
      RATE_LIMIT_RECIPIENTS_PER_MIN: '100000000',
      INBOUND_SMTP_PORT: '0',
      SUBMISSION_PORT: '0',
      PORT: '0',
      ...extraEnv,
    };
    const config = loadConfig(env);
    const db = await openMigratedDatabase(config);
    const store = createStore(db);
    const { api_key } = await createServices(store, config)
      .workspaces.create('bench')
      .then(async (created) => {
        if (options.smtpDomain) await addVerifiedDomain(store, created.workspace_id, options.smtpDomain);
        return created;
      })
      .finally(() => db.destroy());
    return {
      env,
      apiKey: api_key,
      storeName: postgres ? 'PostgreSQL' : 'SQLite (embedded default)',
      where: postgres ? 'a database of its own on the DATABASE_URL server' : dataDir,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
