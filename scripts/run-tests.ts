/**
 * `npm test`: the whole suite on the embedded SQLite store, then again on
 * PostgreSQL when it is reachable (TEST_DATABASE_URL, default the local
 * server). Rate-limit tests run with memory counters and, when Redis is
 * reachable (TEST_REDIS_URL, default the local server), again with Redis.
 * `*.pg.test.ts` files need PostgreSQL and Redis by nature and run in the
 * PostgreSQL pass only.
 *
 * With MAILROOM_TEST_REQUIRE_SERVICES=1 (CI) an unreachable PostgreSQL or
 * Redis fails the run instead of narrowing it.
 *
 * Arguments, if any, are test files to run instead of all of them.
 *
 * The tests that start `mailroom` as a process (serve, worker, the CLI) run
 * bin/mailroom.js, the compiled build, as users do: it is compiled from the
 * sources as they are first (`npm run build:server`; the dashboard's UI is
 * built by `npm install`, or `npm run build:web`).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';

const DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const REQUIRED = process.env.MAILROOM_TEST_REQUIRE_SERVICES === '1';
const PROBE_TIMEOUT_MS = 3_000;

/** Reports reachability without the URL's password. */
const safe = (url: string) => url.replace(/\/\/[^@/]*@/, '//…@');

async function probePostgres(): Promise<string | null> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

async function probeRedis(): Promise<string | null> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: PROBE_TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    redis.disconnect();
  }
}

function runPass(label: string, files: string[], env: Record<string, string>): boolean {
  console.log(`\n=== ${label}: ${files.length} test files ===\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  const ok = result.status === 0;
  console.log(`\n=== ${label}: ${ok ? 'passed' : 'FAILED'} ===`);
  return ok;
}

const compiled = spawnSync('npm', ['run', '--silent', 'build:server'], { stdio: 'inherit' });
if (compiled.status !== 0) {
  console.error('run-tests: npm run build:server failed');
  process.exit(1);
}

const explicit = process.argv.slice(2);
const all = readdirSync('test').filter((f) => f.endsWith('.test.ts')).sort().map((f) => `test/${f}`);
const chosen = explicit.length > 0 ? explicit : all;
const everyStore = chosen.filter((f) => !f.endsWith('.pg.test.ts'));
const postgresOnly = chosen.filter((f) => f.endsWith('.pg.test.ts'));

const [postgresProblem, redisProblem] = await Promise.all([probePostgres(), probeRedis()]);
const notices: string[] = [];
if (postgresProblem) notices.push(`PostgreSQL at ${safe(DATABASE_URL)} is not reachable (${postgresProblem})`);
if (redisProblem) notices.push(`Redis at ${safe(REDIS_URL)} is not reachable (${redisProblem})`);
if (notices.length > 0 && REQUIRED) {
  for (const notice of notices) console.error(`run-tests: ${notice}, and MAILROOM_TEST_REQUIRE_SERVICES=1 requires it`);
  process.exit(1);
}
for (const notice of notices) console.warn(`run-tests: ${notice}: the run is narrowed accordingly`);

// An empty TEST_REDIS_URL tells the tests there is no Redis this run.
const redisEnv = { TEST_REDIS_URL: redisProblem ? '' : REDIS_URL };
const results: [string, boolean][] = [];
if (everyStore.length > 0) results.push(['SQLite', runPass('SQLite (embedded store)', everyStore, { TEST_STORE: 'sqlite', ...redisEnv })]);
if (!postgresProblem && !redisProblem) {
  results.push(['PostgreSQL', runPass('PostgreSQL', [...everyStore, ...postgresOnly], { TEST_STORE: 'postgres', TEST_DATABASE_URL: DATABASE_URL, ...redisEnv })]);
} else if (!postgresProblem) {
  results.push(['PostgreSQL', runPass('PostgreSQL (no Redis)', everyStore, { TEST_STORE: 'postgres', TEST_DATABASE_URL: DATABASE_URL, ...redisEnv })]);
}

console.log('');
for (const [label, ok] of results) console.log(`${label}: ${ok ? 'passed' : 'FAILED'}`);
for (const notice of notices) console.log(`not run: ${notice}`);
process.exit(results.every(([, ok]) => ok) ? 0 : 1);
