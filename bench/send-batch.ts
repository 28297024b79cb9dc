/**
 * `npm run bench:batch`: messages/s accepted through POST /v1/send/batch,
 * batches of 100 one-recipient sends over several connections, against a real
 * `mailroom serve` (bin/mailroom.js) as users run it. Measured twice: as
 * deployed (the delivery worker in the same process, delivering to the
 * sandbox meanwhile) and with WORKER_ENABLED=false (acceptance alone). The
 * target, ≥ 5,000 messages/s, is judged on the as-deployed figure.
 * See bench/README.md.
 */
import autocannon from 'autocannon';
import { openSendBenchStore } from './send-bench-store.js';
import { BenchError, freePort, HOST, positiveNumber, READY_TIMEOUT_MS, runBench, startChild, stopChild, waitReady } from './bench-process.js';

const DURATION_S = positiveNumber('BENCH_DURATION', 10);
const WARMUP_S = positiveNumber('BENCH_WARMUP', 2, true);
const CONNECTIONS = positiveNumber('BENCH_CONNECTIONS', 8);
const BATCH_SIZE = 100;
const TARGET_MESSAGES_PER_S = 5000;

const BATCH_BODY = JSON.stringify(
  Array.from({ length: BATCH_SIZE }, (_, i) => ({
    to: [`user${i}@example.com`],
    from_email: 'Bench <bench@sandbox.mailroom.test>',
    subject: 'Hello',
    text: 'Hi there',
  })),
);

interface Run {
  name: string;
  messagesPerS: number;
  requestsPerS: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/** One batch by hand first: a benchmark of 400s or failed sends would measure the wrong thing. */
async function checkOneBatch(base: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(`${base}/v1/send/batch`, { method: 'POST', headers, body: BATCH_BODY, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  const body = JSON.parse(text) as { success?: boolean; data?: { status?: string }[] };
  if (res.status !== 200 || body.success !== true || body.data?.length !== BATCH_SIZE || body.data.some((r) => r.status !== 'sent')) {
    throw new BenchError(`POST /v1/send/batch did not answer ${BATCH_SIZE} sent results: HTTP ${res.status} ${text.slice(0, 500)}`);
  }
}

async function measure(name: string, env: Record<string, string>, apiKey: string): Promise<Run> {
  const port = await freePort();
  const child = startChild(name, ['bin/mailroom.js', 'serve'], { ...process.env, ...env, HOST, PORT: String(port) });
  const base = `http://${HOST}:${port}`;
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  const options = { url: `${base}/v1/send/batch`, method: 'POST' as const, headers, body: BATCH_BODY, connections: CONNECTIONS };
  try {
    await waitReady(child, base);
    await checkOneBatch(base, headers);
    if (WARMUP_S > 0) {
      console.log(`  ${name}: warm-up ${WARMUP_S} s (not counted)`);
      await autocannon({ ...options, duration: WARMUP_S });
    }
    console.log(`  ${name}: measuring ${DURATION_S} s at ${CONNECTIONS} connections`);
    const result = await autocannon({ ...options, duration: DURATION_S });
    const ok = result.requests.total - result.non2xx;
    return {
      name,
      messagesPerS: (ok * BATCH_SIZE) / DURATION_S,
      requestsPerS: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      requests: result.requests.total,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    };
  } finally {
    await stopChild(child);
  }
}

async function main(): Promise<number> {
  const bench = await openSendBenchStore();
  try {
    const { env, apiKey: api_key, storeName: store } = bench;
    console.log(`bench: store ${store}, ${bench.where}`);

    const deployed = await measure('as deployed (worker on)', env, api_key);
    const apiOnly = await measure('WORKER_ENABLED=false', { ...env, WORKER_ENABLED: 'false' }, api_key);

    console.log(
      `\nPOST /v1/send/batch, ${BATCH_SIZE} one-recipient sends per request: ${CONNECTIONS} connections, ${DURATION_S} s (+${WARMUP_S} s warm-up), Node ${process.version}, store: ${store}`,
    );
    console.log('server                      messages/s  batches/s  p50 ms  p99 ms  requests  non-2xx  errors');
    for (const run of [deployed, apiOnly]) {
      console.log(
        `${run.name.padEnd(26)} ${run.messagesPerS.toFixed(0).padStart(11)} ${run.requestsPerS.toFixed(1).padStart(10)} ${String(run.p50).padStart(7)} ${String(run.p99).padStart(7)} ${String(run.requests).padStart(9)} ${String(run.non2xx).padStart(8)} ${String(run.errors).padStart(7)}`,
      );
    }
    const pass = deployed.messagesPerS >= TARGET_MESSAGES_PER_S;
    console.log(`\ntarget: as deployed ≥ ${TARGET_MESSAGES_PER_S} messages/s: ${deployed.messagesPerS.toFixed(0)} ${pass ? 'PASS' : 'FAIL'}`);
    if (deployed.non2xx + deployed.errors + apiOnly.non2xx + apiOnly.errors > 0) throw new BenchError('some requests were not answered 2xx');
    return 0;
  } finally {
    await bench.close();
  }
}

// Bounded no matter what hangs: start-up, a stuck connection, a child ignoring SIGTERM.
runBench(main, 2 * (WARMUP_S + DURATION_S) * 1000 * 2 + 2 * READY_TIMEOUT_MS + 60_000);
