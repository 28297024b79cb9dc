/**
 * The scale data set that bench:logs and bench:dashboard measure against: a
 * migrated store with one workspace of a million log entries (30 days ending
 * now, bench/logs-fill.ts) and a neighbour of a hundred thousand. With
 * BENCH_REUSE_DIR, filled once and read back by later runs of either
 * benchmark (the fill takes minutes).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { sqliteFileOf } from '../src/db/database.js';
import { createStore } from '../src/composition/store.js';
import { openMigratedDatabase } from '../src/composition/store-runtime.js';
import { createServices } from '../src/composition/services.js';
import { fillLog, postgresSink, sqliteSink, type FillSample } from './logs-fill.js';

export interface ScalePlan {
  entries: number;
  otherEntries: number;
  days: number;
  /** Keep what was filled (a marker file in dataDir) and use it again when it is there. */
  reuse: boolean;
  /** The fill's days end this long before now (bench:retention: all of it past the retention); 0 by default. */
  endsDaysAgo?: number;
}

export interface Filled {
  workspaceId: string;
  apiKey: string;
  sample: FillSample;
  /** When the fill's 30 days end. */
  now: number;
}

/** The environment a scale benchmark runs Mailroom with: its data dir or database, quiet logs, and `extra`. */
export function scaleStoreEnv(dataDir: string, postgresUrl: string | undefined, extra: Record<string, string>): Record<string, string> {
  return { MAILROOM_DATA_DIR: dataDir, ...(postgresUrl ? { DATABASE_URL: postgresUrl } : {}), LOG_LEVEL: 'warn', ...extra };
}

/** Migrates, makes the two workspaces and fills their logs; or, in a reused directory, reads what an earlier run filled. */
export async function prepareScaleStore(env: Record<string, string>, postgresUrl: string | undefined, dataDir: string, plan: ScalePlan): Promise<Filled> {
  const marker = join(dataDir, postgresUrl ? 'bench-logs-postgres.json' : 'bench-logs.json');
  if (plan.reuse && existsSync(marker)) {
    console.log(`bench: reusing the store filled earlier in ${dataDir}`);
    return JSON.parse(readFileSync(marker, 'utf8')) as Filled;
  }
  const config = loadConfig(env);
  const db = await openMigratedDatabase(config);
  const services = createServices(createStore(db), config);
  const [measured, other] = [await services.workspaces.create('bench'), await services.workspaces.create('neighbour')];
  const now = Date.now() - (plan.endsDaysAgo ?? 0) * 86_400_000;
  for (const ws of [measured, other]) {
    const at = new Date(now).toISOString();
    await db.insertInto('webhooks').values({ id: `wh_${ws.workspace_id}`, workspace_id: ws.workspace_id, url: 'https://hooks.example/x', events: '[]', secret: 'whsec_x', created_at: at, updated_at: at }).execute();
  }
  await db.destroy();

  const started = performance.now();
  const fill = async (workspaceId: string, entries: number, seed: number) => {
    const sink = postgresUrl ? postgresSink(postgresUrl) : sqliteSink(sqliteFileOf(dataDir));
    const sample = await fillLog(sink, { workspaceId, entries, days: plan.days, now, webhookId: `wh_${workspaceId}` }, seed);
    await sink.finish();
    return sample;
  };
  const sample = await fill(measured.workspace_id, plan.entries, 1);
  await fill(other.workspace_id, plan.otherEntries, 2);
  console.log(`bench: filled ${sample.entries.toLocaleString('en')} + ${plan.otherEntries.toLocaleString('en')} log entries (with messages, events, attempts, webhook deliveries) in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const filled = { workspaceId: measured.workspace_id, apiKey: measured.api_key, sample, now };
  if (plan.reuse) writeFileSync(marker, JSON.stringify(filled));
  return filled;
}
