/**
 * `npm run bench:ab`: two builds of Mailroom side by side, as deployed
 * (`mailroom serve`, worker on, sandbox provider), to tell whether a change
 * made the send path faster. bench:send judges one build against the bare
 * route; on this VM a round's figure moves by ±20 %, and one server process
 * can run faster or slower than another of the same build for its whole life.
 * So here each round starts a new process of each build (on a store of its own
 * that the build keeps across rounds), in alternating order, and the verdict is
 * the median of the per-round ratios and how many rounds each build won. Run it
 * once with the same build on both sides first: that spread is the noise.
 *
 * BENCH_AB_A and BENCH_AB_B name each build's bin/mailroom.js (A: this
 * checkout's by default); both builds must share the store's schema. See
 * bench/README.md.
 */
import autocannon from 'autocannon';
import { resolve } from 'node:path';
import { BENCH_METRICS_TOKEN as METRICS_TOKEN, oneRecipientSend, openSendBenchStore, type SendBenchStore } from './send-bench-store.js';
import { BenchError, freePort, HOST, positiveNumber, READY_TIMEOUT_MS, runBench, startChild, stopChild, waitReady } from './bench-process.js';
import { cpuPerRequestUs, cpuSecondsOf, diskBytesWrittenOf, median, perRequest } from './send-report.js';
import { waitForDrain } from './send-drain.js';

const DURATION_S = positiveNumber('BENCH_DURATION', 8);
const WARMUP_S = positiveNumber('BENCH_WARMUP', 3, true);
const CONNECTIONS = positiveNumber('BENCH_CONNECTIONS', 50);
const ROUNDS = Math.floor(positiveNumber('BENCH_ROUNDS', 8));
const SEND_BODY = JSON.stringify(oneRecipientSend());

interface Build {
  name: string;
  bin: string;
  store: SendBenchStore;
  rounds: { reqPerS: number; p99Ms: number; cpuUs: number | undefined; diskKb: number | undefined }[];
}

/** One round of one build: a new `serve`, warmed up, measured, its backlog delivered, stopped. */
async function measureRound(build: Build): Promise<void> {
  const port = await freePort();
  const child = startChild(build.name, [build.bin, 'serve'], { ...process.env, ...build.store.env, HOST, PORT: String(port) });
  try {
    const base = `http://${HOST}:${port}`;
    await waitReady(child, base);
    const headers = { 'x-api-key': build.store.apiKey, 'content-type': 'application/json' };
    const load = (duration: number) => autocannon({ url: `${base}/v1/send`, method: 'POST', headers, body: SEND_BODY, connections: CONNECTIONS, duration });
    if (WARMUP_S > 0) await load(WARMUP_S);
    await waitForDrain(base, METRICS_TOKEN);
    const cpuBefore = cpuSecondsOf(child.proc.pid);
    const diskBefore = diskBytesWrittenOf(child.proc.pid);
    const result = await load(DURATION_S);
    const cpuAfter = cpuSecondsOf(child.proc.pid);
    const diskAfter = diskBytesWrittenOf(child.proc.pid);
    if (result.non2xx > 0 || result.errors > 0) throw new BenchError(`${build.name}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
    const diskKb = perRequest(diskBefore, diskAfter, result.requests.total, 1 / 1024);
    build.rounds.push({ reqPerS: result.requests.average, p99Ms: result.latency.p99, cpuUs: cpuPerRequestUs(cpuBefore, cpuAfter, result.requests.total), diskKb });
    await waitForDrain(base, METRICS_TOKEN);
  } finally {
    await stopChild(child);
  }
}

function report(a: Build, b: Build): void {
  const cell = (r: Build['rounds'][number]) =>
    `${r.reqPerS.toFixed(0).padStart(7)} ${String(r.p99Ms).padStart(4)} ${(r.cpuUs?.toFixed(0) ?? 'n/a').padStart(5)} ${(r.diskKb?.toFixed(1) ?? 'n/a').padStart(5)}`;
  console.log(`\nPOST /v1/send as deployed: ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s (+${WARMUP_S} s warm-up), a new process of each build a round, store: ${a.store.storeName}`);
  console.log(`A = ${a.bin}\nB = ${b.bin}`);
  // Disk KB: what the server wrote to disk during the measured seconds (WAL, checkpoints), per request answered.
  console.log('round  A req/s  p99 CPU µs disk KB  B req/s  p99 CPU µs disk KB   B/A');
  const ratios = a.rounds.map((ra, i) => b.rounds[i]!.reqPerS / ra.reqPerS);
  a.rounds.forEach((ra, i) => console.log(`${String(i + 1).padEnd(5)}  ${cell(ra)}  ${cell(b.rounds[i]!)}  ${(ratios[i]! * 100).toFixed(1).padStart(5)} %`));
  const cpuA = a.rounds.flatMap((r) => (r.cpuUs === undefined ? [] : [r.cpuUs]));
  const cpuB = b.rounds.flatMap((r) => (r.cpuUs === undefined ? [] : [r.cpuUs]));
  console.log(`median req/s: A ${median(a.rounds.map((r) => r.reqPerS)).toFixed(0)}, B ${median(b.rounds.map((r) => r.reqPerS)).toFixed(0)}`);
  if (cpuA.length && cpuB.length) console.log(`median server CPU µs/req: A ${median(cpuA).toFixed(0)}, B ${median(cpuB).toFixed(0)}`);
  const diskA = a.rounds.flatMap((r) => (r.diskKb === undefined ? [] : [r.diskKb]));
  const diskB = b.rounds.flatMap((r) => (r.diskKb === undefined ? [] : [r.diskKb]));
  if (diskA.length && diskB.length) console.log(`median disk KB written/req: A ${median(diskA).toFixed(1)}, B ${median(diskB).toFixed(1)}`);
  console.log(`median B/A per round: ${(median(ratios) * 100).toFixed(1)} %; rounds B was faster: ${ratios.filter((r) => r > 1).length} of ${ratios.length}`);
}

async function main(): Promise<number> {
  const binA = resolve(process.env.BENCH_AB_A ?? 'bin/mailroom.js');
  const binB = process.env.BENCH_AB_B ? resolve(process.env.BENCH_AB_B) : undefined;
  if (!binB) throw new BenchError('BENCH_AB_B must name the other build\'s bin/mailroom.js (the same as A for a run that measures the noise)');
  const builds: Build[] = [];
  try {
    for (const [name, bin] of [['A', binA], ['B', binB]] as const) builds.push({ name, bin, store: await openSendBenchStore({ METRICS_TOKEN }), rounds: [] });
    const [a, b] = builds as [Build, Build];
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternating order: neither build always runs just after the other's drain.
      for (const build of round % 2 ? [a, b] : [b, a]) {
        console.log(`  round ${round}, ${build.name}: a new serve, ${WARMUP_S} s warm-up, ${DURATION_S} s measured`);
        await measureRound(build);
      }
    }
    report(a, b);
    return 0;
  } finally {
    for (const build of builds) await build.store.close();
  }
}

runBench(main, ROUNDS * 2 * ((WARMUP_S + DURATION_S) * 1000 + 2 * 300_000 + READY_TIMEOUT_MS) + 120_000);
