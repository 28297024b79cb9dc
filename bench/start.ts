/**
 * `npm run bench:start`: how long Mailroom takes from the command to its first
 * `200` from GET /v1/health/check, and its resident memory once idle, started
 * as the README says (`npm start`) and, labelled, as `node bin/mailroom.js serve`
 * directly. Each run starts twice on a data dir of its own: the first start
 * (an empty dir: the store is created and migrated) and a restart. See
 * bench/README.md for the target and the knobs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchError, freePort, HOST, isRunning, positiveNumber, READY_TIMEOUT_MS, removeOnExit, runBench, startChild, stopChild, type Child } from './bench-process.js';

const RUNS = Math.floor(positiveNumber('BENCH_RUNS', 5));
/** How long a started server is left alone before its memory is read. */
const IDLE_MS = positiveNumber('BENCH_IDLE_MS', 3_000);
const TARGET_START_MS = 1_000;
const TARGET_RSS_MB = 150;

interface Way {
  label: string;
  command: string;
  args: string[];
}

const WAYS: Way[] = [
  { label: 'npm start (as the README says)', command: 'npm', args: ['start'] },
  { label: 'node bin/mailroom.js serve (directly)', command: process.execPath, args: ['bin/mailroom.js', 'serve'] },
];

interface Sample {
  startMs: number;
  /**
   * CPU time (user + system) the processes had used at the first 200: on a
   * machine shared with other work the wall time above stretches with the
   * load, this much less so.
   */
  cpuMs: number;
  /** Mailroom's process (Node): serve with every thread it runs, its delivery thread among them. */
  rssMb: number;
  /** npm's process beside it, for `npm start`. */
  npmRssMb: number | undefined;
}

/** VmRSS of a process, in MB (Linux /proc). */
function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new BenchError(`no VmRSS for process ${pid}`);
  return Number(kb) / 1024;
}

/** CPU time a process has used so far, in ms (Linux /proc: utime and stime, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The child processes of `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

/** npm's one child, Node (`npm start` execs it in place of its shell). */
function nodeUnderNpm(npmPid: number): number {
  const children = childrenOf(npmPid);
  if (children.length !== 1) throw new BenchError(`npm start has ${children.length} child processes (${children.join(', ')}), not Node alone`);
  return children[0]!;
}

/** Waits for serve's log line saying its delivery thread runs: what the idle reading must include. */
async function deliveryThreadStarted(child: Child): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!child.output().includes('"msg":"delivery thread started"')) {
    if (!isRunning(child.proc)) throw new BenchError(`${child.name} exited before its delivery thread started:\n${child.output()}`);
    if (Date.now() > deadline) throw new BenchError(`${child.name} logged no "delivery thread started" within ${READY_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Polls the health check every few milliseconds: the figure is the time to the first 200. */
async function timeToFirst200(child: Child, base: string, startedAt: bigint): Promise<number> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!isRunning(child.proc)) throw new BenchError(`${child.name} exited during start-up:\n${child.output() || '(no output)'}`);
    try {
      const res = await fetch(`${base}/v1/health/check`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) return Number(process.hrtime.bigint() - startedAt) / 1e6;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new BenchError(`${child.name} did not answer 200 within ${READY_TIMEOUT_MS / 1000} s:\n${child.output() || '(no output)'}`);
}

async function measure(way: Way, dataDir: string): Promise<Sample> {
  const port = await freePort();
  // The inbound receiver and SMTP submission on, as by default: on free ports, since 2525 and 587 may be taken.
  const [inboundPort, submissionPort] = [await freePort(), await freePort()];
  const env = { ...process.env, PORT: String(port), HOST, MAILROOM_DATA_DIR: dataDir, INBOUND_SMTP_PORT: String(inboundPort), SUBMISSION_PORT: String(submissionPort) };
  const startedAt = process.hrtime.bigint();
  const child = startChild(way.label, way.args, env, way.command);
  try {
    const startMs = await timeToFirst200(child, `http://${HOST}:${port}`, startedAt);
    const pid = child.proc.pid!;
    const npm = way.command === 'npm';
    const mailroomPid = npm ? nodeUnderNpm(pid) : pid;
    const cpu = cpuMs(mailroomPid) + (npm ? cpuMs(pid) : 0);
    await deliveryThreadStarted(child);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    // Mailroom is this one process: a process of its own beside it (as serve's worker once was) would have to be counted.
    const others = childrenOf(mailroomPid);
    if (others.length > 0) throw new BenchError(`serve has child processes (${others.join(', ')}): this benchmark reads serve's own memory only`);
    return { startMs, cpuMs: cpu, rssMb: rssMb(mailroomPid), npmRssMb: npm ? rssMb(pid) : undefined };
  } finally {
    await stopChild(child);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fmt = (values: number[], unit: string, digits = 0) =>
  `median ${median(values).toFixed(digits)} ${unit} (min ${Math.min(...values).toFixed(digits)}, max ${Math.max(...values).toFixed(digits)})`;

async function main(): Promise<number> {
  console.log(`bench:start  ${new Date().toISOString()}  node ${process.version}  ${RUNS} runs per way, idle ${IDLE_MS} ms before reading RSS`);
  console.log(`load average at the start: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (${cpus().length} CPUs)`);
  const verdicts: string[] = [];
  for (const way of WAYS) {
    const first: Sample[] = [];
    const again: Sample[] = [];
    for (let run = 0; run < RUNS; run++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-bench-start-'));
      removeOnExit(dataDir);
      try {
        first.push(await measure(way, dataDir));
        again.push(await measure(way, dataDir));
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
        removeOnExit(undefined);
      }
    }
    console.log(`\n${way.label}`);
    for (const [what, samples] of [['first start (empty data dir)', first], ['restart (existing data dir)', again]] as const) {
      console.log(`  ${what}: to first 200 ${fmt(samples.map((s) => s.startMs), 'ms')}; CPU used by then ${fmt(samples.map((s) => s.cpuMs), 'ms')}; idle RSS ${fmt(samples.map((s) => s.rssMb), 'MB', 1)}`);
      const npm = samples.map((s) => s.npmRssMb).filter((v): v is number => v !== undefined);
      if (npm.length > 0) console.log(`    npm's own process beside it: RSS ${fmt(npm, 'MB', 1)}`);
    }
    for (const [what, samples] of [['first start', first], ['restart', again]] as const) {
      const startMs = median(samples.map((s) => s.startMs));
      const rss = median(samples.map((s) => s.rssMb));
      verdicts.push(
        `${way.label}, ${what}: to first 200 ${startMs.toFixed(0)} ms (target < ${TARGET_START_MS}) ${startMs < TARGET_START_MS ? 'PASS' : 'FAIL'}; ` +
          `idle RSS of serve with its delivery thread ${rss.toFixed(1)} MB (target < ${TARGET_RSS_MB}) ${rss < TARGET_RSS_MB ? 'PASS' : 'FAIL'}`,
      );
    }
  }
  console.log('');
  for (const line of verdicts) console.log(line);
  return 0;
}

runBench(main, 10 * 60_000);
