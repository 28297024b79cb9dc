/**
 * `npm run bench:logs`: reading a large log, as deployed. One workspace holds
 * a million log entries (30 days of two-recipient messages), a second one a
 * hundred thousand; `mailroom serve` runs as `npm start` runs it (worker and
 * inbound receiver on); 10 clients at once ask for a logs page with each
 * filter alone and status with since, a message's detail, the stats (all
 * time and for 30 days) and a 30-day hourly time series. Targets (issue 7):
 * p99 < 10 ms on SQLite, < 20 ms on PostgreSQL (DATABASE_URL). The query
 * plans at this size are printed too. See bench/README.md.
 */
import autocannon from 'autocannon';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CompiledQuery, type Compilable } from 'kysely';
import { loadConfig } from '../src/config.js';
import { openDatabase, storeKindOfDb } from '../src/db/database.js';
import type { LogFilter } from '../src/logs/log-search-repository.js';
import { createStore } from '../src/composition/store.js';
import { createBenchDatabase } from './bench-database.js';
import { BenchError, children, freePort, runBench, HOST, positiveNumber, READY_TIMEOUT_MS, removeOnExit, startChild, stopChild, waitReady } from './bench-process.js';
import type { FillSample } from './logs-fill.js';
import { prepareScaleStore, scaleStoreEnv } from './scale-store.js';

const ENTRIES = Math.floor(positiveNumber('BENCH_ENTRIES', 1_000_000));
const OTHER_ENTRIES = Math.floor(positiveNumber('BENCH_OTHER_ENTRIES', 100_000));
const DURATION_S = positiveNumber('BENCH_DURATION', 5);
const WARMUP_S = positiveNumber('BENCH_WARMUP', 1, true);
const CONNECTIONS = Math.floor(positiveNumber('BENCH_CONNECTIONS', 10));
const DAYS = 30;
/** Only the scenarios whose names match (a regular expression), for a second look at a few. */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
/**
 * A directory kept after the run, filled once and reused by later runs (the fill takes minutes);
 * with DATABASE_URL, the database `mailroom_bench_logs` on that server is kept with it. Delete both
 * after changing a migration.
 */
const REUSE_DIR = process.env.BENCH_REUSE_DIR;

interface Scenario {
  name: string;
  /** Paths asked in turn, one per request. */
  paths: string[];
}

interface Figures {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  total: string;
}

function scenarios(sample: FillSample, now: number): Scenario[] {
  const daysAgo = (days: number) => new Date(now - days * 86_400_000).toISOString();
  const logs = (query: string) => [`/v1/send/logs${query ? `?${query}` : ''}`];
  return [
    { name: 'logs, no filter', paths: logs('') },
    { name: 'logs type=bounce', paths: logs('type=bounce') },
    { name: 'logs type=send', paths: logs('type=send') },
    { name: 'logs type=send&status=delivered', paths: logs('type=send&status=delivered') },
    { name: 'logs type=bounce&since (7 days)', paths: logs(`type=bounce&since=${daysAgo(7)}`) },
    { name: 'logs status=failed', paths: logs('status=failed') },
    { name: 'logs message_id', paths: sample.messageIds.map((id) => `/v1/send/logs?message_id=${id}`) },
    { name: 'logs to', paths: logs(`to=${encodeURIComponent(sample.recipient)}`) },
    { name: 'logs from_email (half the log)', paths: logs(`from_email=${encodeURIComponent(sample.sender)}`) },
    { name: 'logs tag=plan:free (70 % of the log)', paths: logs('tag=plan:free') },
    { name: 'logs since (15 days)', paths: logs(`since=${daysAgo(15)}`) },
    { name: 'logs until (15 days ago)', paths: logs(`until=${daysAgo(15)}`) },
    { name: 'logs status=delivered&since (7 days)', paths: logs(`status=delivered&since=${daysAgo(7)}`) },
    { name: 'message detail', paths: sample.messageIds.map((id) => `/v1/messages/${id}`) },
    { name: 'stats', paths: ['/v1/send/stats'] },
    { name: 'stats since/until (30 days)', paths: [`/v1/send/stats?since=${daysAgo(30)}&until=${new Date(now).toISOString()}`] },
    { name: 'timeseries hourly (30 days)', paths: [`/v1/send/stats/timeseries?interval=hour&since=${daysAgo(30)}&until=${new Date(now).toISOString()}`] },
  ];
}

async function run(base: string, headers: Record<string, string>, scenario: Scenario): Promise<Figures> {
  const first = await fetch(`${base}${scenario.paths[0]}`, { headers });
  if (first.status !== 200) throw new BenchError(`${scenario.name}: ${scenario.paths[0]} answered ${first.status} ${await first.text()}`);
  const total = first.headers.get('x-total-count') ?? '';
  let next = 0;
  const options: autocannon.Options = {
    url: base,
    headers,
    connections: CONNECTIONS,
    requests: [{ setupRequest: (request) => ({ ...request, path: scenario.paths[next++ % scenario.paths.length]! }) }],
  };
  if (WARMUP_S > 0) await autocannon({ ...options, duration: WARMUP_S });
  next = 0;
  const result = await autocannon({ ...options, duration: DURATION_S });
  return {
    name: scenario.name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.non2xx + result.errors,
    total,
  };
}

/** The plan of each logs filter's page (and count, where a query counts) at this size, as the store chooses it. */
async function printPlans(env: Record<string, string>, workspaceId: string, sample: FillSample, now: number): Promise<void> {
  const db = openDatabase(loadConfig(env));
  const store = createStore(db);
  const explain = async (query: Compilable<unknown>) => {
    const { sql, parameters } = query.compile();
    const sqlite = storeKindOfDb(db) === 'sqlite';
    const rows = await db.executeQuery<Record<string, string>>(CompiledQuery.raw(`${sqlite ? 'explain query plan' : 'explain'} ${sql}`, [...parameters]));
    return rows.rows.map((r) => (sqlite ? r.detail : r['QUERY PLAN'])).join(' | ');
  };
  const since = new Date(now - 7 * 86_400_000).toISOString();
  const filters: [string, LogFilter, boolean][] = [
    ['no filter', {}, false], ['type', { type: 'bounce' }, false], ['type send', { type: 'send' }, false], ['status', { status: 'failed' }, false],
    ['send+status', { type: 'send', status: 'delivered' }, false],
    ['message_id', { message_id: sample.messageIds[0]! }, true], ['to', { to: sample.recipient }, true], ['from_email', { from_email: sample.sender }, true],
    ['since', { since }, false], ['until', { until: since }, false], ['status+since', { status: 'delivered', since }, false],
    ['tag', { tag: { name: 'plan', value: 'free' } }, true], ['tag+type', { tag: { name: 'plan', value: 'pro' }, type: 'bounce' }, true],
  ];
  console.log('\nquery plans at this size (page; count where a query counts):');
  try {
    for (const [name, filter, counted] of filters) {
      console.log(`  ${name.padEnd(12)} page:  ${await explain(store.logSearch.pageQuery(workspaceId, filter, 50, 0))}`);
      if (counted) console.log(`  ${''.padEnd(12)} count: ${await explain(store.logSearch.countQuery(workspaceId, filter))}`);
    }
    // What a range's statistics count of its part hours, by (type, status).
    const halfHourLater = new Date(Date.parse(since) + 1_800_000).toISOString();
    console.log(`  ${'part hour'.padEnd(12)} count: ${await explain(store.counters.entriesBetweenQuery(workspaceId, since, halfHourLater))}`);
  } finally {
    await db.destroy();
  }
}

function report(figures: Figures[], targetMs: number, store: string): boolean {
  console.log(`\nbench:logs on ${store}: ${ENTRIES.toLocaleString('en')} entries in the measured workspace, ${OTHER_ENTRIES.toLocaleString('en')} in another;`);
  console.log(`mailroom serve as \`npm start\` runs it (worker on); ${CONNECTIONS} connections, ${DURATION_S} s per scenario after ${WARMUP_S} s of warm-up\n`);
  console.log(`${'scenario'.padEnd(40)}${'req/s'.padStart(9)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'max ms'.padStart(8)}  ${'X-Total-Count'.padEnd(14)}target`);
  let pass = true;
  for (const f of figures) {
    const ok = f.p99 < targetMs && f.errors === 0;
    pass &&= ok;
    console.log(
      `${f.name.padEnd(40)}${f.requestsPerSecond.toFixed(0).padStart(9)}${String(f.p50).padStart(8)}${String(f.p99).padStart(8)}${String(f.max).padStart(8)}  ${f.total.padEnd(14)}${ok ? 'PASS' : 'FAIL'} (p99 < ${targetMs} ms${f.errors ? `, ${f.errors} errors` : ''})`,
    );
  }
  console.log(`\n${pass ? 'PASS' : 'FAIL'}: every scenario's p99 < ${targetMs} ms`);
  return pass;
}

async function main(): Promise<number> {
  const dataDir = REUSE_DIR ? resolve(REUSE_DIR) : await mkdtemp(join(tmpdir(), 'mailroom-bench-logs-'));
  mkdirSync(dataDir, { recursive: true });
  if (!REUSE_DIR) removeOnExit(dataDir);
  const postgres = process.env.DATABASE_URL
    ? await createBenchDatabase(process.env.DATABASE_URL, REUSE_DIR ? { name: 'mailroom_bench_logs' } : undefined)
    : undefined;
  try {
    const env = scaleStoreEnv(dataDir, postgres?.url, { RATE_LIMIT_SEND_PER_MIN: '100000000', RATE_LIMIT_OTHER_PER_MIN: '100000000', RATE_LIMIT_RECIPIENTS_PER_MIN: '100000000' });
    const { workspaceId, apiKey, sample, now } = await prepareScaleStore(env, postgres?.url, dataDir, { entries: ENTRIES, otherEntries: OTHER_ENTRIES, days: DAYS, reuse: REUSE_DIR !== undefined });
    await printPlans(env, workspaceId, sample, now);

    const port = await freePort();
    const mailroom = startChild('mailroom', ['bin/mailroom.js', 'serve'], { ...process.env, ...env, HOST, PORT: String(port), INBOUND_SMTP_PORT: String(await freePort()), SUBMISSION_PORT: '0' });
    const base = `http://${HOST}:${port}`;
    await waitReady(mailroom, base);
    const figures: Figures[] = [];
    for (const scenario of scenarios(sample, now).filter((s) => !ONLY || ONLY.test(s.name))) {
      console.log(`  measuring ${scenario.name}`);
      figures.push(await run(base, { 'x-api-key': apiKey }, scenario));
    }
    await stopChild(mailroom);
    report(figures, postgres ? 20 : 10, postgres ? 'PostgreSQL' : 'SQLite (embedded default)');
    return 0;
  } finally {
    await postgres?.drop();
    for (const child of [...children]) await stopChild(child);
    if (!REUSE_DIR) await rm(dataDir, { recursive: true, force: true });
    removeOnExit(undefined);
  }
}

// Bounded no matter what hangs: start-up, a stuck connection, a child ignoring SIGTERM.
runBench(main, 20 * 60_000 + READY_TIMEOUT_MS);
