import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'mailroom.js');

/**
 * How long a start may take to log the line the helpers below wait for, before they end the process and fail:
 * one that never logs it (it hangs, or its log says it otherwise) would keep the test process alive forever.
 */
const START_TIMEOUT_MS = 30_000;

/**
 * Reads a started process's stdout and stderr for its whole life (a full pipe would block it) and resolves
 * with the first match of `line` in what it wrote. Rejects if it exits first, or if nothing matched within
 * START_TIMEOUT_MS, after ending it with `kill`.
 */
export function readStartLine(
  proc: ChildProcess,
  exited: Promise<number | null>,
  line: RegExp,
  what: string,
  kill: () => void = () => proc.kill('SIGKILL'),
): { started: Promise<RegExpExecArray>; output(): string } {
  let output = '';
  const started = new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => {
      kill();
      reject(new Error(`${what} did not log ${line} within ${START_TIMEOUT_MS} ms: ${output}`));
    }, START_TIMEOUT_MS);
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const match = line.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    proc.stdout!.on('data', collect);
    proc.stderr!.on('data', collect);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited early with ${code}: ${output}`));
    });
  });
  return { started, output: () => output };
}

/**
 * Runs a `mailroom` command to completion as a real process (in `cwd`, when given). `unprivileged`:
 * as a user without root's powers, to meet the permission checks an operator's service user meets.
 * As root, that is root without capabilities (util-linux's setpriv): the same user, so the checkout
 * stays readable wherever it is, but bound by file modes and unable to bind ports below 1024.
 */
export function mailroomCommand(args: string[], env: Record<string, string>, options: { cwd?: string; unprivileged?: boolean } = {}) {
  const [command, prefix] = options.unprivileged && process.getuid?.() === 0 ? ['setpriv', ['--bounding-set=-all', '--', process.execPath]] : [process.execPath, []];
  return spawnSync(command, [...prefix, BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', cwd: options.cwd });
}

/**
 * The line a command that opens the store writes on stderr before anything else of its own: which store
 * (`mailroom: using store /tmp/…/mailroom.db (MAILROOM_DATA_DIR)`, or DATABASE_URL's). `creating`: `migrate`
 * and `serve` on a data dir with no store yet.
 */
export function storeLine(env: Record<string, string | undefined>, verb: 'using' | 'creating' = 'using'): string {
  const store = env.DATABASE_URL ? `${env.DATABASE_URL} (DATABASE_URL)` : `${join(resolve(env.MAILROOM_DATA_DIR ?? 'data'), 'mailroom.db')} (MAILROOM_DATA_DIR)`;
  return `mailroom: ${verb} store ${store}\n`;
}

export interface ServeProcess {
  child: ChildProcess;
  base: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `mailroom serve` as a real process on a free port; resolves once it logs where it listens.
 * LOG_LEVEL is `info` unless `env` names one (debug or trace: the line waited for is logged at info).
 * `bin`: another copy of bin/mailroom.js than the checkout's.
 */
export async function startServe(env: Record<string, string>, options: { bin?: string } = {}): Promise<ServeProcess> {
  // No inbound receiver or submission server unless the test asks for one on a port of its own (their defaults, 2525 and 587, are shared).
  // The runner's own LOG_LEVEL, if any, does not reach it: only the caller's.
  const child = spawn(process.execPath, [options.bin ?? BIN, 'serve'], { env: { ...process.env, INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0', PORT: '0', ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'info' } });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const { started, output } = readStartLine(child, exited, /listening at http:\/\/127\.0\.0\.1:(\d+)/, 'mailroom serve');
  const port = Number((await started)[1]);
  const server: ServeProcess = {
    child,
    base: `http://127.0.0.1:${port}`,
    output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  startedServers.push({ server, shown: 0 });
  return server;
}

/** Every `serve` this test file started, and how much of its output a failed test has shown already. */
const startedServers: { server: ServeProcess; shown: number }[] = [];
/** The most of one server's output a failed test shows: its end, where what went wrong was logged. */
const FAILURE_OUTPUT_CHARS = 30_000;
/** How long, at most, a failed test's report waits for the servers' output to stop growing: a diagnostic, not a condition. */
const OUTPUT_SETTLE_POLL_MS = 100;
const OUTPUT_SETTLE_POLLS = 10;
const totalOutput = () => startedServers.reduce((n, { server }) => n + server.output().length, 0);

/**
 * After each failed test of the calling suite, writes to stderr what each `serve` this file started logged
 * since the last failure (its last FAILURE_OUTPUT_CHARS). A test that waited in vain for the server (a webhook
 * post that never came) otherwise tells nothing of why, and the process and its log are gone by the time
 * anyone looks at the CI log.
 */
export function showServeOutputOfFailedTests(): void {
  afterEach(async (t) => {
    if (!('passed' in t) || t.passed) return;
    // A request's log line is written once its answer has gone: let the lines of the test's last requests arrive.
    for (let i = 0, before = -1; i < OUTPUT_SETTLE_POLLS && before !== totalOutput(); i++) {
      before = totalOutput();
      await delay(OUTPUT_SETTLE_POLL_MS);
    }
    for (const started of startedServers) {
      const output = started.server.output();
      const unseen = output.slice(Math.max(started.shown, output.length - FAILURE_OUTPUT_CHARS));
      started.shown = output.length;
      if (unseen) process.stderr.write(`--- "${t.name}" failed; what mailroom serve at ${started.server.base} logged, not shown before:\n${unseen}\n--- end of its output\n`);
    }
  });
}

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** The worker's lease owner, as it logged it at start (`delivery_jobs.lease_owner` of the jobs it holds). */
  owner: string;
  /** Resolves with the exit code (null when ended by a signal). */
  exited: Promise<number | null>;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** The line a delivery worker logs as it starts (in `mailroom worker`, and in `serve`'s delivery thread), its lease owner captured. */
export const WORKER_STARTED_LINE = /"owner":"([^"]+)"[^\n]*"msg":"delivery worker started"/;

/** `mailroom worker` as a real process; resolves once it logs that the delivery worker started. */
export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [BIN, 'worker'], { env: { ...process.env, ...env, LOG_LEVEL: 'info' } });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const { started, output } = readStartLine(child, exited, WORKER_STARTED_LINE, 'mailroom worker');
  const owner = (await started)[1]!;
  return {
    child,
    pid: child.pid!,
    owner,
    exited,
    output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
