/**
 * `npm run bench:send`: throughput and tail latency of POST /v1/send (one
 * recipient, sandbox sender) against a bare Fastify route answering the same
 * envelope. See bench/README.md for the target and the knobs.
 *
 * Each server runs in its own child process, and only one is under load at a
 * time, so neither the load generator (this process) nor the other server
 * competes for its event loop.
 */
import autocannon from 'autocannon';
import { resolve } from 'node:path';
import { openSendBenchStore } from './send-bench-store.js';
import { BenchError, freePort, runBench, HOST, positiveNumber, READY_TIMEOUT_MS, startChild, stopChild, waitReady, type Child } from './bench-process.js';
import { cpuSecondsOf, report, type Measurement, type Round } from './send-report.js';


const DURATION_S = positiveNumber('BENCH_DURATION', 10);
const WARMUP_S = positiveNumber('BENCH_WARMUP', 2, true);
const CONNECTIONS = positiveNumber('BENCH_CONNECTIONS', 50);
const ROUNDS = Math.floor(positiveNumber('BENCH_ROUNDS', 3));
/** When set, the Mailroom child writes a V8 CPU profile (.cpuprofile) into this directory on exit. */
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;


const SEND_BODY = JSON.stringify({
  to: ['user@example.com'],
  from_email: 'Bench <bench@sandbox.mailroom.test>',
  subject: 'Hello',
  text: 'Hi there',
});

// ---------------------------------------------------------------- measurement

/** One request by hand first: a benchmark of 401s or failed sends would measure the wrong thing. */
async function checkOneSend(name: string, base: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(`${base}/v1/send`, { method: 'POST', headers, body: SEND_BODY, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  let body: { success?: unknown; data?: { status?: unknown } } | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (res.status < 200 || res.status > 299 || body?.success !== true || body.data?.status !== 'sent') {
    throw new BenchError(`${name}: POST /v1/send did not answer {"success":true,"data":{"status":"sent",...}}: HTTP ${res.status} ${text}`);
  }
}

/** Uncounted load first: the JIT, the page cache and the writer thread settle before anything is measured. */
async function warmUp(child: Child, base: string, headers: Record<string, string>): Promise<void> {
  await checkOneSend(child.name, base, headers);
  if (WARMUP_S === 0) return;
  console.log(`  ${child.name}: warm-up ${WARMUP_S} s (not counted)`);
  await autocannon({ url: `${base}/v1/send`, method: 'POST', headers, body: SEND_BODY, connections: CONNECTIONS, duration: WARMUP_S });
}

async function measure(child: Child, base: string, headers: Record<string, string>, round: number): Promise<Measurement> {
  console.log(`  round ${round}, ${child.name}: measuring ${DURATION_S} s at ${CONNECTIONS} connections`);
  const cpuBefore = cpuSecondsOf(child.proc.pid);
  const clientBefore = process.cpuUsage();
  const result = await autocannon({ url: `${base}/v1/send`, method: 'POST', headers, body: SEND_BODY, connections: CONNECTIONS, duration: DURATION_S });
  const client = process.cpuUsage(clientBefore);
  const cpuAfter = cpuSecondsOf(child.proc.pid);
  const requests = result.requests.total;
  return {
    result,
    cpuPerRequestUs: cpuBefore === undefined || cpuAfter === undefined || requests === 0 ? undefined : ((cpuAfter - cpuBefore) / requests) * 1e6,
    clientCpuPerRequestUs: requests === 0 ? undefined : (client.user + client.system) / requests,
  };
}

// ---------------------------------------------------------------- main


async function main(): Promise<number> {
  // Acceptance alone, as deployed with API and workers apart: the worker has its own benchmark
  // (bench/delivery.ts), and delivering in the same process would measure both at once.
  const bench = await openSendBenchStore({ WORKER_ENABLED: 'false' });
  try {
    const { env, apiKey: api_key } = bench;
    console.log(`bench: store ${bench.storeName}, ${bench.where}`);
    const headers = { 'x-api-key': api_key, 'content-type': 'application/json' };

    const mailroomPort = await freePort();
    const profileArgs = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : [];
    const mailroom = startChild('mailroom', [...profileArgs, 'bin/mailroom.js', 'serve'], {
      ...process.env,
      ...env,
      HOST,
      PORT: String(mailroomPort),
    });
    const mailroomBase = `http://${HOST}:${mailroomPort}`;
    await waitReady(mailroom, mailroomBase);
    await warmUp(mailroom, mailroomBase, headers);

    const barePort = await freePort();
    const bare = startChild('bare fastify', ['--import', 'tsx', 'bench/bare-server.ts'], { ...process.env, HOST, PORT: String(barePort) });
    const bareBase = `http://${HOST}:${barePort}`;
    await waitReady(bare, bareBase);
    await warmUp(bare, bareBase, headers);

    // Alternating rounds, each server idle while the other is measured: on a
    // shared VM whose speed drifts from minute to minute, both see the same
    // drift, and the median of the per-round ratios is what the target judges.
    const rounds: Round[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const mailroomRun = await measure(mailroom, mailroomBase, headers, round);
      const bareRun = await measure(bare, bareBase, headers, round);
      rounds.push({ mailroom: mailroomRun, bare: bareRun });
    }
    await stopChild(mailroom);
    await stopChild(bare);
    if (CPU_PROF_DIR) console.log(`bench: CPU profile of the Mailroom child written to ${CPU_PROF_DIR}`);

    return report(rounds, { connections: CONNECTIONS, durationS: DURATION_S, warmupS: WARMUP_S, store: bench.storeName }) ? 0 : 1;
  } finally {
    await bench.close();
  }
}

// Bounded no matter what hangs: start-up, a stuck connection, a child ignoring SIGTERM.
runBench(main, 2 * (WARMUP_S + ROUNDS * DURATION_S) * 1000 + 2 * READY_TIMEOUT_MS + 30_000);
